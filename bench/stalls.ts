/**
 * What is behind the p99 under fixed load: the gateway on PostgreSQL (STALLS_DB=pglite: on
 * the embedded PGlite), with the production build and flags (BENCH_NODE_FLAGS replaces the flags),
 * at a fixed rate of `tools/call` echo (1 KiB), with BENCH_STALL_LOG=1, so it writes every GC pause
 * of 5 ms and more (`gc <kind> <ms>`, kind 1 a scavenge, 4 a mark-compact) and every event-loop
 * stall of 20 ms and more on stderr, and at the end the pauses of each kind summed
 * (`gc-total <kind> <count> pauses <ms> ms mean <ms> ms`).
 * Usage: npx tsx bench/stalls.ts   (RATE=1000 calls/s for 10 s after a 3 s warm-up; EXTRA=<node flags>
 * added to the production ones; HEAP_SAMPLE=<file> a sampling heap profile of the 10 s of what no
 * young-generation GC freed (BENCH_HEAP_SAMPLE_ALL=1: everything allocated); HEAP_SNAPSHOT=<file> a
 * heap snapshot 5 s in)
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ask, echoBundleTarget, pin, startProcess } from './harness.js';
import { fixedRate } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';
const HERE = path.dirname(fileURLToPath(import.meta.url));
pin(process.pid, 1);
const upstream = await startProcess(['--import', 'tsx', path.join(HERE, 'upstream.ts')], 1);
const extra = (process.env.EXTRA ?? '').split(' ').filter(Boolean);
const gw = await startProcess([...benchNodeFlags(), ...extra, gatewayEntry(), String(upstream.info.port)], 0, {
  ipc: true,
  env: { BENCH_DATABASE_URL: process.env.STALLS_DB === 'pglite' ? '' : 'postgres://postgres@127.0.0.1:5432/test', BENCH_STALL_LOG: '1' },
});
const target = await echoBundleTarget(gw.info, 32, 'stall');
await fixedRate(target, 1000, 3000);
// HEAP_SAMPLE=<file>: a sampling heap profile of the measured run (for Chrome DevTools or a script),
// of the objects no young-generation GC freed (what outlives its call, or was pretenured).
if (process.env.HEAP_SAMPLE) await ask(gw.child, { cmd: 'heap-sample-start' });
const running = fixedRate(target, Number(process.env.RATE ?? 1000), 10000);
// HEAP_SNAPSHOT=<file>: a heap snapshot 5 s into the run (what is live while calls flow).
if (process.env.HEAP_SNAPSHOT) {
  await new Promise((resolve) => setTimeout(resolve, 5000));
  await ask(gw.child, { cmd: 'heap-snapshot', file: path.resolve(process.env.HEAP_SNAPSHOT) });
}
const r = await running;
if (process.env.HEAP_SAMPLE) await ask(gw.child, { cmd: 'heap-sample-stop', file: path.resolve(process.env.HEAP_SAMPLE) });
console.log(JSON.stringify(r));
gw.child.kill('SIGTERM');
upstream.child.kill('SIGTERM');
await new Promise((resolve) => gw.child.once('exit', resolve));
process.exit(0);
