/**
 * A/B of the MCP fast path (issue 13): two gateway processes identical but for how `/mcp/bundle/…`
 * is served, F (the `node:http` fast path, the default) and K (through the Koa chain), both
 * pinned to core 0, the bench upstream and this load client to core 1. Closed loop `tools/call`
 * echo (1 KiB) at 8 clients, trials alternating in ABBA order so neither side always runs first;
 * CPU per request from /proc. Writes bench/results/fast-path-ab-<time>.json.
 * Usage: tsx bench/fast-path-ab.ts [trials=8] [ms=2000] [koa-first]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, echoBundleTarget, median, pin, startProcess } from './harness.js';
import { closedLoop } from './load.js';
import { gatewayEntry } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TRIALS = Number(process.argv[2] ?? 8);
const RUN_MS = Number(process.argv[3] ?? 2000);
/** A bench process on Node (its JSON line read), with an IPC channel: the upstream through tsx, the gateways compiled. */
const start = (args: string[], core: number) => startProcess(args, core, { ipc: true });

pin(process.pid, 1);
const upstream = await start(['--import', 'tsx', path.join(HERE, 'upstream.ts')], 1);
// argv[4] = 'koa-first' starts K before F (to see whether start order biases the figures).
const KOA_FIRST = process.argv[4] === 'koa-first';
const koaFirst = KOA_FIRST ? await start([gatewayEntry(), String(upstream.info.port), 'koa'], 0) : undefined;
const fast = await start([gatewayEntry(), String(upstream.info.port)], 0);
const koa = koaFirst ?? (await start([gatewayEntry(), String(upstream.info.port), 'koa'], 0));
const targets = { F: await echoBundleTarget(fast.info, 8, 'ab'), K: await echoBundleTarget(koa.info, 8, 'ab') };
const pids = { F: fast.child.pid!, K: koa.child.pid! };
for (const m of ['F', 'K'] as const) await closedLoop(targets[m], 8, 2000);

const trials: Record<'F' | 'K', { cpu_us_per_req: number; rps: number; p50_ms: number }[]> = { F: [], K: [] };
for (let t = 0; t < TRIALS; t++) {
  const order = t % 4 === 0 || t % 4 === 3 ? (['F', 'K'] as const) : (['K', 'F'] as const);
  for (const m of order) {
    const cpu0 = cpuSeconds(pids[m]);
    const r = await closedLoop(targets[m], 8, RUN_MS);
    const cpu = cpuSeconds(pids[m]) - cpu0;
    trials[m].push({ cpu_us_per_req: Math.round((cpu * 1e6) / r.requests), rps: r.rps, p50_ms: r.p50_ms });
    process.stderr.write(`trial ${t + 1} ${m}: ${JSON.stringify(trials[m].at(-1))}\n`);
  }
}
const summary = Object.fromEntries(
  (['F', 'K'] as const).map((m) => [
    m,
    {
      cpu_us_per_req: median(trials[m].map((x) => x.cpu_us_per_req)),
      rps: median(trials[m].map((x) => x.rps)),
      p50_ms: median(trials[m].map((x) => x.p50_ms)),
    },
  ]),
);
const pairs = trials.F.map((f, i) => Math.round((f.cpu_us_per_req / trials.K[i]!.cpu_us_per_req) * 100) / 100);
const results = {
  when: new Date().toISOString(),
  loadavg: os.loadavg(),
  method: { trials: TRIALS, run_ms: RUN_MS, clients: 8, order: 'ABBA', started_first: KOA_FIRST ? 'K' : 'F', payload_bytes: 1024 },
  summary,
  cpu_ratio_F_over_K_per_trial: pairs,
  cpu_ratio_F_over_K_median: median(pairs),
  trials,
};
fs.mkdirSync(path.join(HERE, 'results'), { recursive: true });
fs.writeFileSync(
  path.join(HERE, 'results', `fast-path-ab-${results.when.replace(/[:.]/g, '-')}.json`),
  `${JSON.stringify(results, null, 2)}\n`,
);
process.stdout.write(`${JSON.stringify({ loadavg: results.loadavg, summary, pairs, median: results.cpu_ratio_F_over_K_median })}\n`);
for (const p of [fast, koa, upstream]) p.child.kill('SIGTERM');
