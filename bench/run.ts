/**
 * Benchmark harness (PERFORMANCE.md): scenarios B1 (tools/call echo, 1 KB in and out, 1/8/32
 * clients, fixed 1k and 2k req/s), B4 (warm tools/list of 1,000 tools from 50 servers) and B7
 * (memory per idle session, 1,000 and 10,000 sessions, and after they end), with the direct (D)
 * and raw-hop (R) baselines in the same run, trials interleaved. The gateway and the raw proxy
 * are pinned to core 0, the upstream and this load client to core 1. Results go to
 * bench/results/<time>.json (and latest.json); a Markdown summary is printed.
 * Usage: npm run bench  (BENCH_QUICK=1 for a short smoke run)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ask, cpuSeconds, echoCallBody, MCP_JSON, median, openSessions, pin, resultsDir, startProcess } from './harness.js';
import { closedLoop, fixedRate, type RunResult, type Target } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';
const TRIALS = QUICK ? 1 : 5;
const RUN_MS = QUICK ? 1000 : 3000;
const RATE_MS = QUICK ? 2000 : 10_000;
const CLIENTS = [1, 8, 32];
const cores = os.cpus().length;
/** The PostgreSQL of column P (a schema of its own, dropped at the end). */
const PG_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** A bench process (its JSON line read), pinned to `core`. */
const start = (args: string[], core: number, ipc = false, env?: NodeJS.ProcessEnv) =>
  startProcess(args, core, { ipc, ...(env ? { env } : {}) });

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

async function main(): Promise<void> {
  pin(process.pid, 1);
  const tsx = ['--import', 'tsx'];
  const upstream = await start([...tsx, path.join(HERE, 'upstream.ts')], 1);
  const proxy = await start([...tsx, path.join(HERE, 'raw-proxy.ts'), String(upstream.info.port)], 0);
  // The gateways run with the Node/V8 flags of `npm start` (bench/production-flags.ts).
  const flags = benchNodeFlags();
  const gateway = await start([...flags, '--expose-gc', gatewayEntry(), String(upstream.info.port)], 0, true);
  // P: the same gateway on PostgreSQL (the production database; call records leave the process).
  const gatewayPg = await start([...flags, '--expose-gc', gatewayEntry(), String(upstream.info.port)], 0, true, {
    BENCH_DATABASE_URL: PG_URL,
  });
  const up = `http://127.0.0.1:${upstream.info.port}`;
  const gw = `http://127.0.0.1:${gateway.info.port}`;
  const callBody = echoCallBody;
  const json = MCP_JSON;

  const gwPg = `http://127.0.0.1:${gatewayPg.info.port}`;
  async function openSession(key: string, origin = gw): Promise<string> {
    return (await openSessions(`${origin}/mcp/bundle/${key}`, 1))[0]!;
  }
  const sessions = await Promise.all(Array.from({ length: 32 }, () => openSession(gateway.info.echoKey)));
  const gwHeaders = (c: number) => ({ ...json, 'mcp-session-id': sessions[c % sessions.length]!, 'mcp-protocol-version': '2025-11-25' });
  const pgSessions = await Promise.all(Array.from({ length: 32 }, () => openSession(gatewayPg.info.echoKey, gwPg)));
  const pgHeaders = (c: number) => ({
    ...json,
    'mcp-session-id': pgSessions[c % pgSessions.length]!,
    'mcp-protocol-version': '2025-11-25',
  });

  const MODES = ['D', 'R', 'G', 'P'] as const;
  const targets: Record<(typeof MODES)[number], Target> = {
    D: { origin: up, path: '/', headers: () => json, body: callBody },
    R: { origin: `http://127.0.0.1:${proxy.info.port}`, path: '/', headers: () => json, body: callBody },
    G: { origin: gw, path: `/mcp/bundle/${gateway.info.echoKey}`, headers: gwHeaders, body: callBody },
    P: { origin: gwPg, path: `/mcp/bundle/${gatewayPg.info.echoKey}`, headers: pgHeaders, body: callBody },
  };
  const pidOf = { D: upstream.child.pid!, R: proxy.child.pid!, G: gateway.child.pid!, P: gatewayPg.child.pid! };
  /** Resident set size of a process now, MiB. */
  const rssMiB = (pid: number) =>
    round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024, 1);
  const rssAfter32: Record<string, number[]> = {};

  // Warm-up: JIT, pools, caches.
  for (const mode of MODES) await closedLoop(targets[mode], 8, QUICK ? 500 : 2000);

  // B1 closed loop, trials interleaving D, R, G.
  type Trial = RunResult & { cpu_us_per_req: number | null };
  const b1: Record<string, Trial[]> = {};
  for (let trial = 0; trial < TRIALS; trial++) {
    for (const clients of CLIENTS) {
      for (const mode of MODES) {
        const cpu0 = cpuSeconds(pidOf[mode]);
        const r = await closedLoop(targets[mode], clients, RUN_MS);
        const cpu = cpuSeconds(pidOf[mode]) - cpu0;
        if (clients === 32) (rssAfter32[mode] ??= []).push(rssMiB(pidOf[mode]));
        (b1[`${mode}@${clients}`] ??= []).push({ ...r, cpu_us_per_req: r.requests ? round((cpu * 1e6) / r.requests, 1) : null });
        process.stderr.write(`B1 trial ${trial + 1} ${mode}@${clients}: p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, ${r.rps} req/s\n`);
      }
    }
  }
  const b1Median = Object.fromEntries(
    Object.entries(b1).map(([k, trials]) => [
      k,
      {
        p50_ms: median(trials.map((t) => t.p50_ms)),
        p99_ms: median(trials.map((t) => t.p99_ms)),
        rps: median(trials.map((t) => t.rps)),
        cpu_us_per_req: median(trials.map((t) => t.cpu_us_per_req ?? NaN)),
        errors: trials.reduce((a, t) => a + t.errors, 0),
        p50_spread_ms: [Math.min(...trials.map((t) => t.p50_ms)), Math.max(...trials.map((t) => t.p50_ms))],
      },
    ]),
  );

  // B1 fixed rate (tails). Each system first runs unmeasured at the rate (as bench/stalls.ts does),
  // so that the measured window holds neither the previous system's leftover work (a call-record
  // flush, a collection) on the shared core nor the load generator's new connections.
  const rates: Record<string, RunResult> = {};
  for (const rate of [1000, 2000]) {
    for (const mode of ['D', 'R', 'G', 'P'] as const) {
      await fixedRate(targets[mode], rate, QUICK ? 500 : 2000);
      rates[`${mode}@${rate}rps`] = await fixedRate(targets[mode], rate, RATE_MS);
      process.stderr.write(`B1 fixed ${rate}/s ${mode}: ${JSON.stringify(rates[`${mode}@${rate}rps`])}\n`);
    }
  }

  // B4 warm tools/list of 1,000 tools (G), beside the upstream answering a pre-serialised list of 1,000 (D).
  const listSession = await openSession(gateway.info.listKey);
  const listBody = () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  const listTargets: Record<'D' | 'G', Target> = {
    D: { origin: up, path: '/', headers: () => json, body: listBody },
    G: {
      origin: gw,
      path: `/mcp/bundle/${gateway.info.listKey}`,
      headers: () => ({ ...json, 'mcp-session-id': listSession, 'mcp-protocol-version': '2025-11-25' }),
      body: listBody,
    },
  };
  const b4: Record<string, RunResult[]> = {};
  for (let trial = 0; trial < TRIALS; trial++) {
    for (const mode of ['D', 'G'] as const) (b4[mode] ??= []).push(await closedLoop(listTargets[mode], 1, RUN_MS));
  }
  const b4Median = Object.fromEntries(
    Object.entries(b4).map(([k, ts]) => [
      k,
      { p50_ms: median(ts.map((t) => t.p50_ms)), p99_ms: median(ts.map((t) => t.p99_ms)), rps: median(ts.map((t) => t.rps)) },
    ]),
  );
  const listSize = (
    await (
      await fetch(`${gw}/mcp/bundle/${gateway.info.listKey}`, { method: 'POST', headers: listTargets.G.headers(0), body: listBody() })
    ).text()
  ).length;

  // B7 idle sessions.
  const heap = async () => (await ask<{ heap: number }>(gateway.child, { cmd: 'heap' })).heap;
  const b7: Record<string, unknown> = {};
  const baseline = await heap();
  for (const n of QUICK ? [1000] : [1000, 10_000]) {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 50)
      ids.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => openSession(gateway.info.echoKey)))));
    const withSessions = await heap();
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(
        ids
          .slice(i, i + 50)
          .map((id) =>
            fetch(`${gw}/mcp/bundle/${gateway.info.echoKey}`, { method: 'DELETE', headers: { 'mcp-session-id': id } }).then((r) =>
              r.text(),
            ),
          ),
      );
    }
    const after = await heap();
    b7[`${n}`] = {
      bytes_per_session: Math.round((withSessions - baseline) / n),
      heap_baseline_mb: round(baseline / 1048576, 2),
      heap_with_sessions_mb: round(withSessions / 1048576, 2),
      heap_after_end_mb: round(after / 1048576, 2),
      after_vs_baseline_pct: round(((after - baseline) / baseline) * 100, 1),
    };
  }

  const D = (c: number) => b1Median[`D@${c}`]!;
  const R = (c: number) => b1Median[`R@${c}`]!;
  const G = (c: number) => b1Median[`G@${c}`]!;
  const P = (c: number) => b1Median[`P@${c}`]!;
  const derived = {
    cpu_ratio_P_over_R_32: round(P(32).cpu_us_per_req / R(32).cpu_us_per_req, 2),
    cpu_ratio_G_over_P_32: round(G(32).cpu_us_per_req / P(32).cpu_us_per_req, 2),
    throughput_P_over_R_32: round(P(32).rps / R(32).rps, 2),
    added_p50_ms_1_P: round(P(1).p50_ms - D(1).p50_ms),
    rss_mib_after_32_clients: Object.fromEntries(Object.entries(rssAfter32).map(([k, v]) => [k, Math.max(...v)])),
    added_p50_ms_1: round(G(1).p50_ms - D(1).p50_ms),
    added_p99_ms_1: round(G(1).p99_ms - D(1).p99_ms),
    added_p50_ms_32: round(G(32).p50_ms - D(32).p50_ms),
    added_p99_ms_32: round(G(32).p99_ms - D(32).p99_ms),
    overhead_ratio_p50_1: round((G(1).p50_ms - D(1).p50_ms) / (R(1).p50_ms - D(1).p50_ms), 2),
    cpu_ratio_G_over_R_32: round(G(32).cpu_us_per_req / R(32).cpu_us_per_req, 2),
    throughput_G_over_R_32: round(G(32).rps / R(32).rps, 2),
    throughput_G_over_D_32: round(G(32).rps / D(32).rps, 2),
  };
  const results = {
    when: new Date().toISOString(),
    machine: { cpus: cores, model: os.cpus()[0]?.model, node: process.version, pinned: cores >= 2 },
    method: {
      trials: TRIALS,
      run_ms: RUN_MS,
      rate_run_ms: RATE_MS,
      quick: QUICK,
      node_flags: benchNodeFlags().join(' '),
      payload_bytes: 1024,
      upstream_caller:
        'G: production upstream pool (tools/call sent directly on the lean Streamable HTTP transport, undici), MCP fast path, embedded PGlite; P: the same on PostgreSQL',
    },
    b1: { median: b1Median, trials: b1, fixed_rate: rates, derived },
    b4: { median: b4Median, response_bytes: listSize },
    b7,
  };
  fs.mkdirSync(resultsDir(), { recursive: true });
  const stamp = results.when.replace(/[:.]/g, '-');
  fs.writeFileSync(path.join(resultsDir(), `${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(resultsDir(), 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);

  const lines = ['| scenario | D | R | G (PGlite) | P (PostgreSQL) |', '|---|---|---|---|---|'];
  for (const c of CLIENTS) {
    lines.push(
      `| B1 p50 / p99 ms, ${c} client(s) | ${D(c).p50_ms} / ${D(c).p99_ms} | ${R(c).p50_ms} / ${R(c).p99_ms} | ${G(c).p50_ms} / ${G(c).p99_ms} | ${P(c).p50_ms} / ${P(c).p99_ms} |`,
    );
    lines.push(`| B1 req/s, ${c} client(s) | ${D(c).rps} | ${R(c).rps} | ${G(c).rps} | ${P(c).rps} |`);
    lines.push(
      `| B1 CPU µs/req, ${c} client(s) | ${D(c).cpu_us_per_req} | ${R(c).cpu_us_per_req} | ${G(c).cpu_us_per_req} | ${P(c).cpu_us_per_req} |`,
    );
  }
  for (const rate of [1000, 2000]) {
    const f = (m: string) => rates[`${m}@${rate}rps`]!;
    lines.push(
      `| B1 fixed ${rate}/s p50 / p99 ms (errors) | ${f('D').p50_ms} / ${f('D').p99_ms} (${f('D').errors}) | ${f('R').p50_ms} / ${f('R').p99_ms} (${f('R').errors}) | ${f('G').p50_ms} / ${f('G').p99_ms} (${f('G').errors}) | ${f('P').p50_ms} / ${f('P').p99_ms} (${f('P').errors}) |`,
    );
  }
  lines.push(
    `| B4 warm tools/list 1,000 tools p50 / p99 ms | ${b4Median.D!.p50_ms} / ${b4Median.D!.p99_ms} | | ${b4Median.G!.p50_ms} / ${b4Median.G!.p99_ms} |`,
  );
  process.stdout.write(`${lines.join('\n')}\n\nderived: ${JSON.stringify(derived)}\nB7: ${JSON.stringify(b7)}\n`);

  for (const p of [gateway, gatewayPg, proxy, upstream]) p.child.kill('SIGTERM');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
