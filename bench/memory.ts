/**
 * Memory under load (a target of BENCHMARKS.md): the gateway process (bench/gateway.ts, production
 * path) on the embedded PGlite and on PostgreSQL (BENCH_DATABASE_URL, default the local server),
 * each after start-up (idle) and right after a 32-client closed loop of `tools/call` (1 KiB echo)
 * for MEMORY_RUN_S seconds (default 20). Reports RSS (/proc), its split (anonymous vs file-backed,
 * smaps_rollup), the V8 heap, `external` (off-heap memory V8 knows of, PGlite's WebAssembly memory
 * among it) and array buffers, and the thread count. The two modes run one after the other in one
 * run (same load on the machine, load average reported). Results: bench/results/memory-<time>.json.
 * The gateway runs with the Node/V8 flags of `npm start` (bench/production-flags.ts);
 * BENCH_NODE_FLAGS replaces them (e.g. `BENCH_NODE_FLAGS=` for none, `--max-semi-space-size=4`) to
 * measure others. Exits 1 when the PostgreSQL gateway's RSS after the load or at its peak is over
 * 256 MiB.
 * Usage: npm run bench:memory
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { closedLoop } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';
import { ask, echoBundleTarget, writeResult } from './harness.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RUN_MS = Number(process.env.MEMORY_RUN_S ?? 20) * 1000;
const PG_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const MiB = 1048576;
/** Which databases to measure (`MEMORY_MODES=pglite` for the embedded one alone). */
const MODES = (process.env.MEMORY_MODES ?? 'pglite,postgresql')
  .split(',')
  .filter((m): m is 'pglite' | 'postgresql' => m === 'pglite' || m === 'postgresql');
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

async function start(args: string[], env: Record<string, string> = {}, ipc = false): Promise<{ child: ChildProcess; info: any }> {
  const child = spawn(process.execPath, args, {
    cwd: path.join(HERE, '..'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', ...(ipc ? ['ipc' as const] : [])],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

/** RSS and its split from /proc (kB → MiB). */
function procMemory(pid: number) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (text: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? NaN) / 1024;
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return {
    rss_mib: round(kb(status, 'VmRSS')),
    rss_anon_mib: round(kb(status, 'RssAnon')),
    rss_file_mib: round(kb(status, 'RssFile')),
    anonymous_mib: round(kb(rollup, 'Anonymous')),
    threads: Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? NaN),
  };
}

async function measure(mode: 'pglite' | 'postgresql', upstreamPort: number) {
  const env: Record<string, string> = mode === 'postgresql' ? { BENCH_DATABASE_URL: PG_URL } : { BENCH_DATABASE_URL: '' };
  const flags = benchNodeFlags();
  const gateway = await start([...flags, '--expose-gc', gatewayEntry(), String(upstreamPort)], env, true);
  let spaces: Record<string, number> = {};
  const v8 = async (): Promise<NodeJS.MemoryUsage> => {
    const m = await ask<{ memory: NodeJS.MemoryUsage; spaces: Record<string, number> }>(gateway.child, { cmd: 'memory' });
    spaces = Object.fromEntries(Object.entries(m.spaces).filter(([, v]) => v > 0));
    return m.memory;
  };
  const snapshot = async () => {
    const m = await v8();
    return {
      ...procMemory(gateway.child.pid!),
      heap_used_mib: round(m.heapUsed / MiB),
      heap_total_mib: round(m.heapTotal / MiB),
      external_mib: round(m.external / MiB),
      array_buffers_mib: round(m.arrayBuffers / MiB),
      v8_spaces_mib: spaces,
    };
  };
  const target = await echoBundleTarget(gateway.info, 32, 'memory');
  const idle = await snapshot();
  // RSS peaks during the load: sample it every second while the loop runs.
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, procMemory(gateway.child.pid!).rss_mib)), 1000);
  const load = await closedLoop(target, 32, RUN_MS);
  clearInterval(sampler);
  const loaded = { ...(await snapshot()), rss_peak_during_load_mib: peak };
  gateway.child.kill('SIGTERM');
  await new Promise((r) => gateway.child.once('exit', r));
  return { mode, idle, after_32_clients: loaded, load };
}

async function main(): Promise<void> {
  const upstream = await start(['--import', 'tsx', path.join(HERE, 'upstream.ts')]);
  const runs = [];
  for (const mode of MODES) runs.push(await measure(mode, upstream.info.port));
  upstream.child.kill('SIGTERM');
  const pglite = runs.find((r) => r.mode === 'pglite')?.after_32_clients;
  const pg = runs.find((r) => r.mode === 'postgresql')?.after_32_clients;
  const result = {
    at: new Date().toISOString(),
    loadavg: os.loadavg().map((x) => round(x, 2)),
    cpus: os.cpus().length,
    run_s: RUN_MS / 1000,
    node_flags: benchNodeFlags().join(' '),
    runs,
    pglite_cost_rss_mib: pglite && pg ? round(pglite.rss_mib - pg.rss_mib) : null,
    pglite_cost_external_mib: pglite && pg ? round(pglite.external_mib - pg.external_mib) : null,
    postgresql_within_256_mib: pg ? pg.rss_peak_during_load_mib <= 256 && pg.rss_mib <= 256 : null,
    pglite_within_300_mib: pglite ? pglite.rss_peak_during_load_mib <= 300 && pglite.rss_mib <= 300 : null,
  };
  const file = writeResult('memory', result.at, result);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\nwritten: ${file}\n`);
  // The memory target (BENCHMARKS.md): RSS after the load and at its peak, PostgreSQL, ≤ 256 MiB.
  if (pg && !result.postgresql_within_256_mib) {
    process.stderr.write(`PostgreSQL RSS over 256 MiB: after the load ${pg.rss_mib}, peak ${pg.rss_peak_during_load_mib}\n`);
    process.exitCode = 1;
  }
  if (pglite && !result.pglite_within_300_mib) {
    process.stderr.write(`embedded PGlite RSS over 300 MiB: after the load ${pglite.rss_mib}, peak ${pglite.rss_peak_during_load_mib}\n`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
