/**
 * Peers over one stdio server: Toolgate against the proxies a user would pick instead,
 * each in front of its own copy of the same stdio MCP server (bench/stdio-upstream.mjs, `echo`):
 *
 * - T: Toolgate (bench/gateway.ts stdio: the real server, the stdio server registered through the
 *   REST API, a bundle, key lookup, policy, call records in the embedded PGlite or
 *   BENCH_DATABASE_URL, info logging), called on `/mcp/bundle/{key}`;
 * - SG: `supergateway --stdio … --outputTransport streamableHttp --stateful` (one child per session);
 * - MP: `mcp-proxy --server stream -- …` (the TypeScript mcp-proxy; installed with the Node 22 dev
 *   tools by `npm run tools:node22`, as a dependency of its tunnel feature refuses Node 20, and run
 *   here on the same Node as the others);
 * - MH: `mcp-hub --port … --config …` (a hub of several servers behind one endpoint, like Toolgate's
 *   gateway; its `/mcp` speaks the legacy HTTP+SSE transport, so its sessions are event streams and
 *   each call's answer arrives on the stream, bench/sse-session.ts; its tool is `echo__echo`).
 *
 * Every system gets real sessions (initialize, notifications/initialized, Mcp-Session-Id), and B1:
 * closed-loop `tools/call` echo with 1 KiB in and out at 1/8/32 clients, trials interleaved, the
 * median trial quoted. A reply counts only when it is HTTP 200 with the echoed text and no error.
 * Each proxy and its children are pinned to core 0, this load client to core 1. CPU per call is the
 * proxy process's own (`utime + stime`), and separately with its stdio children; RSS of the proxy
 * after its 32-client trials. Results: bench/results/peers-<time>.json and a Markdown table.
 * Usage: npm run bench:peers   (BENCH_QUICK=1: one short trial)
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';
import { writeResult } from './harness.js';
import { SseSession } from './sse-session.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, '..');
const QUICK = process.env.BENCH_QUICK === '1';
const TRIALS = QUICK ? 1 : 5;
const RUN_MS = QUICK ? 1000 : 3000;
const CLIENTS = [1, 8, 32];
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const UPSTREAM = [process.execPath, path.join(HERE, 'stdio-upstream.mjs')];
const TEXT = 'x'.repeat(1024);
const EXPECTED = `"text":"${TEXT}"`;

function pin(pid: number, core: number): void {
  if (os.cpus().length < 2) return;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
  } catch {
    // taskset missing: unpinned.
  }
}

/** Pids of a process and all its descendants. */
function family(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    try {
      const children = fs.readFileSync(`/proc/${out[i]}/task/${out[i]}/children`, 'utf8').trim();
      if (children) out.push(...children.split(/\s+/).map(Number));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS;
  } catch {
    return 0;
  }
}

function rssMiB(pid: number): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 102.4) / 10;
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

interface System {
  readonly id: string;
  readonly child: ChildProcess;
  readonly origin: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  sessions: string[];
  /** The echo tool's name on this system. */
  tool?: string;
  /** Sessions of a legacy HTTP+SSE endpoint (MH), one per client, instead of `sessions`. */
  sse?: SseSession[];
}

/** Waits until `url` answers an initialize (the proxy is up and has its stdio server). */
async function waitUp(origin: string, p: string, headers: Record<string, string>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await openSession(origin, p, headers);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${origin}${p} did not come up`);
}

async function openSession(origin: string, p: string, headers: Record<string, string>): Promise<string> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers };
  const init = await fetch(origin + p, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-peers', version: '1' } },
    }),
  });
  const text = await init.text();
  const session = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !session) throw new Error(`initialize: HTTP ${init.status} ${text.slice(0, 200)}`);
  const note = await fetch(origin + p, {
    method: 'POST',
    headers: { ...base, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await note.text();
  return session;
}

async function startToolgate(): Promise<System> {
  // With the Node/V8 flags of `npm start` (bench/production-flags.ts), as in production.
  const child = spawn(process.execPath, [...benchNodeFlags(), gatewayEntry(), 'stdio'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  pin(child.pid!, 0);
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`toolgate exited ${code}`)));
  });
  const info = JSON.parse(line) as { port: number; echoKey: string };
  return { id: 'T', child, origin: `http://127.0.0.1:${info.port}`, path: `/mcp/bundle/${info.echoKey}`, headers: {}, sessions: [] };
}

async function startPeer(id: string, script: string, args: string[], p: string): Promise<System> {
  if (!fs.existsSync(script)) throw new Error(`${script} is missing: run npm install (supergateway) and npm run tools:node22 (mcp-proxy)`);
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  pin(child.pid!, 0);
  const system: System = { id, child, origin: '', path: p, headers: {}, sessions: [] };
  return system;
}

/** mcp-hub in front of its own copy of the stdio server, its sessions opened once its server is connected. */
async function startHub(clients: number): Promise<System> {
  const script = path.join(ROOT, 'node_modules/mcp-hub/dist/cli.js');
  const port = await freePort();
  const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mcp-hub-')), 'mcp-hub.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { echo: { command: UPSTREAM[0], args: UPSTREAM.slice(1) } } }));
  const system = await startPeer('MH', script, ['--port', String(port), '--config', config], '/mcp');
  (system as { origin: string }).origin = `http://127.0.0.1:${port}`;
  system.tool = 'echo__echo';
  // Sessions are never closed before the hub is stopped: closing one crashes mcp-hub 4.2.1
  // ("Maximum call stack size exceeded" in its close handler).
  let probe: SseSession | undefined;
  for (let i = 0; i < 300 && !probe; i++) {
    probe = await SseSession.open(system.origin, system.path, 'bench-peers').catch(() => undefined);
    if (!probe) await new Promise((r) => setTimeout(r, 100));
  }
  if (!probe) throw new Error('mcp-hub did not come up');
  for (let i = 0; i < 300; i++) {
    const list = await probe.request(JSON.stringify({ jsonrpc: '2.0', id: `list-${i}`, method: 'tools/list', params: {} }));
    if (list.includes(`"${system.tool}"`)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  system.sse = [probe];
  for (let c = 1; c < clients; c++) system.sse.push(await SseSession.open(system.origin, system.path, 'bench-peers'));
  return system;
}

async function main(): Promise<void> {
  pin(process.pid, 1);
  const sgPort = await freePort();
  const mpPort = await freePort();
  const systems: System[] = [
    await startToolgate(),
    await startPeer(
      'SG',
      path.join(ROOT, 'node_modules/supergateway/dist/index.js'),
      [
        '--stdio',
        UPSTREAM.map((a) => JSON.stringify(a)).join(' '),
        '--outputTransport',
        'streamableHttp',
        '--stateful',
        '--port',
        String(sgPort),
        '--logLevel',
        'none',
      ],
      '/mcp',
    ),
    await startPeer(
      'MP',
      path.join(ROOT, 'tools/node22/node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs'),
      ['--port', String(mpPort), '--host', '127.0.0.1', '--server', 'stream', '--no-eventStore', '--', ...UPSTREAM],
      '/mcp',
    ),
  ];
  (systems[1] as { origin: string }).origin = `http://127.0.0.1:${sgPort}`;
  (systems[2] as { origin: string }).origin = `http://127.0.0.1:${mpPort}`;
  for (const s of systems) {
    await waitUp(s.origin, s.path, s.headers);
    for (let i = 0; i < Math.max(...CLIENTS); i++) s.sessions.push(await openSession(s.origin, s.path, s.headers));
    // Threads and children started since the first pin.
    for (const pid of family(s.child.pid!)) pin(pid, 0);
  }
  const hub = await startHub(Math.max(...CLIENTS));
  for (const pid of family(hub.child.pid!)) pin(pid, 0);
  systems.push(hub);

  const results: Record<string, Record<string, unknown>[]> = {};
  const rss: Record<string, { proxy: number; children: number }> = {};
  for (const clients of CLIENTS) {
    for (let trial = 0; trial < TRIALS + 1; trial++) {
      for (const s of trial % 2 === 0 ? systems : [...systems].reverse()) {
        const pids = family(s.child.pid!);
        const own0 = cpuSeconds(s.child.pid!);
        const all0 = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
        const run = await closedLoop(s, clients, trial === 0 ? 500 : RUN_MS);
        const own = cpuSeconds(s.child.pid!) - own0;
        const all = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - all0;
        if (trial === 0) continue; // warm-up
        const row = {
          ...run,
          cpu_us_per_call: run.ok ? Math.round((own / run.ok) * 1e7) / 10 : null,
          cpu_us_per_call_with_children: run.ok ? Math.round((all / run.ok) * 1e7) / 10 : null,
        };
        (results[`${s.id}@${clients}`] ??= []).push(row);
        console.error(`${s.id}@${clients} trial ${trial}: ${JSON.stringify(row)}`);
      }
    }
    if (clients === 32)
      for (const s of systems) {
        const pids = family(s.child.pid!);
        rss[s.id] = {
          proxy: rssMiB(s.child.pid!),
          children: Math.round(pids.slice(1).reduce((sum, pid) => sum + rssMiB(pid), 0) * 10) / 10,
        };
      }
  }
  for (const s of systems) s.child.kill('SIGTERM');

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const pick = (key: string, field: string) => median(results[key]!.map((r) => Number(r[field])));
  const table: string[] = [
    '| B1 echo 1 KiB (median of trials) | Toolgate (T) | supergateway (SG) | mcp-proxy (MP) | mcp-hub (MH) |',
    '|---|---|---|---|---|',
  ];
  for (const c of CLIENTS) {
    const cell = (field: string) => systems.map((s) => pick(`${s.id}@${c}`, field)).join(' | ');
    table.push(`| req/s, ${c} client(s) | ${cell('rps')} |`);
    table.push(
      `| p50 / p99 ms, ${c} client(s) | ${systems.map((s) => `${pick(`${s.id}@${c}`, 'p50_ms')} / ${pick(`${s.id}@${c}`, 'p99_ms')}`).join(' | ')} |`,
    );
    table.push(`| proxy CPU µs/call, ${c} client(s) | ${cell('cpu_us_per_call')} |`);
    table.push(`| proxy + stdio children CPU µs/call, ${c} client(s) | ${cell('cpu_us_per_call_with_children')} |`);
    table.push(
      `| failed replies, ${c} client(s) | ${systems.map((s) => results[`${s.id}@${c}`]!.reduce((n, r) => n + Number(r.failed), 0)).join(' | ')} |`,
    );
  }
  table.push(
    `| RSS after 32 clients, proxy / children MiB | ${systems.map((s) => `${rss[s.id]!.proxy} / ${rss[s.id]!.children}`).join(' | ')} |`,
  );
  const best = (field: string, better: 'min' | 'max') => {
    const peers = ['SG', 'MP', 'MH'].map((id) => pick(`${id}@32`, field));
    return better === 'min' ? Math.min(...peers) : Math.max(...peers);
  };
  const derived = {
    cpu_T_over_best_peer_32: Math.round((pick('T@32', 'cpu_us_per_call') / best('cpu_us_per_call', 'min')) * 100) / 100,
    cpu_with_children_T_over_best_peer_32:
      Math.round((pick('T@32', 'cpu_us_per_call_with_children') / best('cpu_us_per_call_with_children', 'min')) * 100) / 100,
    throughput_T_over_best_peer_32: Math.round((pick('T@32', 'rps') / best('rps', 'max')) * 100) / 100,
    added_p50_T_minus_best_peer_1:
      Math.round((pick('T@1', 'p50_ms') - Math.min(pick('SG@1', 'p50_ms'), pick('MP@1', 'p50_ms'), pick('MH@1', 'p50_ms'))) * 1000) / 1000,
  };
  const out = { at: new Date().toISOString(), load: os.loadavg(), quick: QUICK, trials: TRIALS, run_ms: RUN_MS, results, rss, derived };
  const file = writeResult('peers', out.at, out);
  console.log(table.join('\n'));
  console.log(`\nderived: ${JSON.stringify(derived)}\nraw: ${path.relative(ROOT, file)}`);
  process.exit(0);
}

/** `clients` closed loops for `ms`, each on its own session; only correct echoes count as answered. */
async function closedLoop(s: System, clients: number, ms: number) {
  const pool = new Pool(s.origin, { connections: clients, pipelining: 1 });
  const body = (id: number) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: s.tool ?? 'echo', arguments: { text: TEXT } } });
  const latencies: number[] = [];
  let failed = 0;
  let seq = 1;
  const end = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': s.sessions[c]!,
        'mcp-protocol-version': '2025-11-25',
        ...s.headers,
      };
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          let text: string;
          let ok = true;
          if (s.sse) text = await s.sse[c]!.request(body(seq++));
          else {
            const res = await pool.request({ method: 'POST', path: s.path, headers, body: body(seq++) });
            text = await res.body.text();
            ok = res.statusCode === 200;
          }
          if (ok && text.includes(EXPECTED) && !text.includes('"error"')) latencies.push(performance.now() - t0);
          else failed += 1;
        } catch {
          failed += 1;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Math.round((latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN) * 1000) / 1000;
  return { ok: latencies.length, failed, rps: Math.round(latencies.length / seconds), p50_ms: at(50), p99_ms: at(99) };
}

await main();
