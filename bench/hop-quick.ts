/**
 * Quick hop comparison for profiling work on the gateway's hot path: the bench upstream,
 * the raw proxy R and one gateway G (production path: PGlite, or PostgreSQL with
 * BENCH_DATABASE_URL), each pinned as in `npm run bench`; closed-loop `tools/call` echo (1 KiB)
 * at N clients, trials interleaving R and G; CPU per request from /proc. Not the acceptance
 * bench (that is `npm run bench`): a short loop for before/after measurements while optimising.
 * Usage: tsx bench/hop-quick.ts [clients=32] [trials=3] [ms=3000] [stdio]
 * BENCH_CPU_PROF=<dir> starts G under `--cpu-prof` (profile written to <dir> at exit).
 * G runs with the Node/V8 flags of `npm start` (bench/production-flags.ts); BENCH_NODE_FLAGS replaces
 * them (`BENCH_NODE_FLAGS=` for none) to measure their CPU cost. G is compiled as `npm start` runs
 * the server (`gatewayEntry`: dist/bench/gateway.js on dist/, no tsx in its process).
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, echoBundleTarget, echoCallBody, MCP_JSON, median, pin, startProcess } from './harness.js';
import { closedLoop, type Target } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLIENTS = Number(process.argv[2] ?? 32);
const TRIALS = Number(process.argv[3] ?? 3);
const RUN_MS = Number(process.argv[4] ?? 3000);
const STDIO = process.argv[5] === 'stdio';
const tsx = ['--import', 'tsx'];

pin(process.pid, 1);
const upstream = await startProcess([...tsx, path.join(HERE, 'upstream.ts')], 1);
const raw = await startProcess([...tsx, path.join(HERE, 'raw-proxy.ts'), String(upstream.info.port)], 0);
const prof = process.env.BENCH_CPU_PROF;
const gw = await startProcess(
  [
    ...benchNodeFlags(),
    '--expose-gc',
    ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
    gatewayEntry(),
    STDIO ? 'stdio' : String(upstream.info.port),
  ],
  0,
  { ipc: true },
);
const targets: Record<'R' | 'G', Target> = {
  R: { origin: `http://127.0.0.1:${raw.info.port}`, path: '/', headers: () => MCP_JSON, body: echoCallBody },
  G: await echoBundleTarget(gw.info, CLIENTS, 'hop'),
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
  `${JSON.stringify({
    loadavg: os.loadavg().map((x) => Math.round(x * 10) / 10),
    clients: CLIENTS,
    R,
    G,
    cpu_G_over_R: Math.round((G.cpu_us / R.cpu_us) * 100) / 100,
    rps_G_over_R: Math.round((G.rps / R.rps) * 100) / 100,
    trials,
  })}\n`,
);
for (const p of [gw, raw, upstream]) p.child.kill('SIGTERM');
await new Promise((r) => setTimeout(r, 1500));
