/**
 * A/B of two builds of the gateway: for a change whose effect is smaller than this
 * machine's drift between runs, both builds run side by side, pinned to core 0 (the bench
 * upstream and this load client on core 1), each idle while the other is measured, with trials
 * in ABBA order. Closed-loop `tools/call` echo (1 KiB); CPU per request from /proc (all threads).
 * A build is a copy of dist/ made with `node scripts/build-server.mjs --bench` and then copied to a
 * directory beside dist/ (so its relative paths still reach the repository), e.g. `dist-before`.
 * Each gateway uses PGlite, or PostgreSQL with BENCH_DATABASE_URL (then both share it).
 * AB_RATE=<calls/s>: a fixed rate instead of the closed loop (p99 and the rate reached are the figures then).
 * Usage: tsx bench/build-ab.ts <dirA> <dirB> [clients=32] [trials=6] [ms=3000]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, echoBundleTarget, median, pin, startProcess } from './harness.js';
import { closedLoop, fixedRate } from './load.js';
import { benchNodeFlags } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const [dirA, dirB] = [process.argv[2], process.argv[3]];
if (!dirA || !dirB) throw new Error('usage: tsx bench/build-ab.ts <dirA> <dirB> [clients] [trials] [ms]');
const CLIENTS = Number(process.argv[4] ?? 32);
const TRIALS = Number(process.argv[5] ?? 6);
const RUN_MS = Number(process.argv[6] ?? 3000);
const RATE = Number(process.env.AB_RATE ?? 0);

pin(process.pid, 1);
const upstream = await startProcess(['--import', 'tsx', path.join(HERE, 'upstream.ts')], 1);
const start = (dir: string) =>
  startProcess([...benchNodeFlags(), path.resolve(dir, 'bench', 'gateway.js'), String(upstream.info.port)], 0, { ipc: true });
const gateways = { A: await start(dirA), B: await start(dirB) };
const sides = ['A', 'B'] as const;
const targets = { A: await echoBundleTarget(gateways.A.info, CLIENTS, 'ab'), B: await echoBundleTarget(gateways.B.info, CLIENTS, 'ab') };
for (const m of sides) await (RATE ? fixedRate(targets[m], RATE, 2000) : closedLoop(targets[m], CLIENTS, 2000));
const trials: Record<'A' | 'B', { cpu_us: number; rps: number; p50_ms: number; p99_ms: number; errors: number }[]> = { A: [], B: [] };
for (let t = 0; t < TRIALS; t++) {
  for (const m of t % 4 === 0 || t % 4 === 3 ? sides : ([...sides].reverse() as ('A' | 'B')[])) {
    const pid = gateways[m].child.pid!;
    const cpu0 = cpuSeconds(pid);
    const r = RATE ? await fixedRate(targets[m], RATE, RUN_MS) : await closedLoop(targets[m], CLIENTS, RUN_MS);
    const cpu = cpuSeconds(pid) - cpu0;
    trials[m].push({ cpu_us: Math.round((cpu * 1e6) / r.requests), rps: r.rps, p50_ms: r.p50_ms, p99_ms: r.p99_ms, errors: r.errors });
    process.stderr.write(`trial ${t + 1} ${m}: ${JSON.stringify(trials[m].at(-1))}\n`);
  }
}
const sum = (m: 'A' | 'B') => ({
  dir: m === 'A' ? dirA : dirB,
  cpu_us: median(trials[m].map((x) => x.cpu_us)),
  rps: median(trials[m].map((x) => x.rps)),
  p50_ms: median(trials[m].map((x) => x.p50_ms)),
  p99_ms: median(trials[m].map((x) => x.p99_ms)),
  errors: trials[m].reduce((a, x) => a + x.errors, 0),
});
process.stdout.write(`${JSON.stringify({ clients: CLIENTS, rate: RATE || undefined, A: sum('A'), B: sum('B'), trials })}\n`);
for (const p of [gateways.A, gateways.B, upstream]) p.child.kill('SIGTERM');
await new Promise((r) => setTimeout(r, 1500));
