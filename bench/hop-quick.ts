/**
 * Quick hop comparison for profiling work on the gateway's hot path (issue 13): the bench upstream,
 * the raw proxy R and one gateway G (production path: PGlite, or PostgreSQL with
 * BENCH_DATABASE_URL), each pinned as in `npm run bench`; closed-loop `tools/call` echo (1 KiB)
 * at N clients, trials interleaving R and G; CPU per request from /proc. Not the acceptance
 * bench (that is `npm run bench`): a short loop for before/after measurements while optimising.
 * Usage: tsx bench/hop-quick.ts [clients=32] [trials=3] [ms=3000] [stdio]
 * BENCH_CPU_PROF=<dir> starts G under `--cpu-prof` (profile written to <dir> at exit).
 * G runs with the Node/V8 flags of `npm start` (bench/production-flags.ts); BENCH_NODE_FLAGS replaces
 * them (`BENCH_NODE_FLAGS=` for none) to measure their CPU cost.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { closedLoop, type Target } from './load.js';
import { benchNodeFlags } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLIENTS = Number(process.argv[2] ?? 32);
const TRIALS = Number(process.argv[3] ?? 3);
const RUN_MS = Number(process.argv[4] ?? 3000);
const STDIO = process.argv[5] === 'stdio';
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

function pin(pid: number, core: number): void {
  if (os.cpus().length < 2) return;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
  } catch {
    // taskset missing: unpinned.
  }
}

async function start(args: string[], core: number, flags: string[] = []): Promise<{ child: ChildProcess; info: any }> {
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', ...args], {
    cwd: path.join(HERE, '..'),
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  pin(child.pid!, core);
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
  pin(child.pid!, core);
  return { child, info: JSON.parse(line) };
}

function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICKS;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

pin(process.pid, 1);
const upstream = await start([path.join(HERE, 'upstream.ts')], 1);
const raw = await start([path.join(HERE, 'raw-proxy.ts'), String(upstream.info.port)], 0);
const prof = process.env.BENCH_CPU_PROF;
const gw = await start([path.join(HERE, 'gateway.ts'), STDIO ? 'stdio' : String(upstream.info.port)], 0, [
  ...benchNodeFlags(),
  '--expose-gc',
  ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
]);
const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const text1k = 'x'.repeat(1024);
const body = (seq: number) =>
  JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: 'echo', arguments: { text: text1k } } });

async function gatewayTarget(): Promise<Target> {
  const origin = `http://127.0.0.1:${gw.info.port}`;
  const p = `/mcp/bundle/${gw.info.echoKey}`;
  const sessions: string[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const res = await fetch(origin + p, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hop', version: '1' } },
      }),
    });
    await res.text();
    sessions.push(res.headers.get('mcp-session-id')!);
  }
  return {
    origin,
    path: p,
    headers: (c) => ({ ...json, 'mcp-session-id': sessions[c % CLIENTS]!, 'mcp-protocol-version': '2025-11-25' }),
    body,
  };
}
const targets: Record<'R' | 'G', Target> = {
  R: { origin: `http://127.0.0.1:${raw.info.port}`, path: '/', headers: () => json, body },
  G: await gatewayTarget(),
};
const pids = { R: raw.child.pid!, G: gw.child.pid! };
for (const m of ['R', 'G'] as const) await closedLoop(targets[m], CLIENTS, 1500);
const trials: Record<'R' | 'G', { cpu_us: number; rps: number; p50_ms: number; errors: number }[]> = { R: [], G: [] };
for (let t = 0; t < TRIALS; t++) {
  for (const m of t % 2 === 0 ? (['R', 'G'] as const) : (['G', 'R'] as const)) {
    const cpu0 = cpuSeconds(pids[m]);
    const r = await closedLoop(targets[m], CLIENTS, RUN_MS);
    const cpu = cpuSeconds(pids[m]) - cpu0;
    trials[m].push({ cpu_us: Math.round((cpu * 1e6) / r.requests), rps: r.rps, p50_ms: r.p50_ms, errors: r.errors });
  }
}
const sum = (m: 'R' | 'G') => ({
  cpu_us: median(trials[m].map((x) => x.cpu_us)),
  rps: median(trials[m].map((x) => x.rps)),
  p50_ms: median(trials[m].map((x) => x.p50_ms)),
  errors: trials[m].reduce((a, x) => a + x.errors, 0),
});
const R = sum('R');
const G = sum('G');
process.stdout.write(
  `${JSON.stringify({ loadavg: os.loadavg().map((x) => Math.round(x * 10) / 10), clients: CLIENTS, R, G, cpu_G_over_R: Math.round((G.cpu_us / R.cpu_us) * 100) / 100, rps_G_over_R: Math.round((G.rps / R.rps) * 100) / 100, trials })}\n`,
);
for (const p of [gw, raw, upstream]) p.child.kill('SIGTERM');
await new Promise((r) => setTimeout(r, 1500));
