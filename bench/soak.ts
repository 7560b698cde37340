/**
 * Soak (memory over time): the gateway (bench/gateway.ts, production path: lean Streamable HTTP
 * upstream pool, call records, info logging) under a fixed rate of `tools/call` (1 KiB echo) for
 * SOAK_MINUTES (default 10) at SOAK_RATE calls/s (default 1,000) over 32 sessions. Every minute it
 * takes the gateway's heap after a full GC and its RSS; the verdict compares the last sample with
 * the one after the first (warm-up) minute: growth within 5 % passes. BENCH_DATABASE_URL runs the
 * gateway on PostgreSQL instead of the embedded PGlite. Results: bench/results/soak-<time>.json and
 * a summary on stdout.
 * Usage: npm run bench:soak   (SOAK_MINUTES=1 for a short run)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fixedRate, type RunResult } from './load.js';
import { ask, echoBundleTarget, writeResult } from './harness.js';
import { gatewayEntry } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
/** The length of one soak "minute" (shortened only by the smoke run, which checks that the bench still runs). */
const MINUTE_MS = Number(process.env.SOAK_MINUTE_MS ?? 60_000);
const RATE = Number(process.env.SOAK_RATE ?? 1000);
const SESSIONS = 32;

async function start(args: string[], ipc = false): Promise<{ child: ChildProcess; info: any }> {
  const child = spawn(process.execPath, args, {
    cwd: path.join(HERE, '..'),
    stdio: ['ignore', 'pipe', 'inherit', ...(ipc ? ['ipc' as const] : [])],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const MiB = 1048576;

async function main(): Promise<void> {
  const tsx = ['--import', 'tsx'];
  const upstream = await start([...tsx, path.join(HERE, 'upstream.ts')]);
  const gateway = await start(['--expose-gc', gatewayEntry(), String(upstream.info.port)], true);
  const target = await echoBundleTarget(gateway.info, SESSIONS, 'soak');
  const memory = () => ask<{ memory: NodeJS.MemoryUsage; sessions: number }>(gateway.child, { cmd: 'memory' });
  const samples: { minute: number; heap_used_mib: number; rss_mib: number; array_buffers_mib: number; external_mib: number }[] = [];
  const minutes: RunResult[] = [];
  const sample = async (minute: number) => {
    const m = (await memory()).memory;
    samples.push({
      minute,
      heap_used_mib: round(m.heapUsed / MiB),
      rss_mib: round(m.rss / MiB, 1),
      array_buffers_mib: round(m.arrayBuffers / MiB),
      external_mib: round(m.external / MiB),
    });
    process.stderr.write(`soak minute ${minute}: ${JSON.stringify(samples.at(-1))} ${JSON.stringify(minutes.at(-1) ?? {})}\n`);
  };
  await sample(0);
  for (let minute = 1; minute <= MINUTES; minute++) {
    minutes.push(await fixedRate(target, RATE, MINUTE_MS, 64));
    await sample(minute);
  }
  const warm = samples[1]!;
  const last = samples.at(-1)!;
  const growthPct = round(((last.heap_used_mib - warm.heap_used_mib) / warm.heap_used_mib) * 100, 1);
  const requests = minutes.reduce((n, m) => n + m.requests, 0);
  const errors = minutes.reduce((n, m) => n + m.errors, 0);
  // Wall time of the load: on a loaded machine a scheduled minute can take longer than 60 s.
  const seconds = minutes.reduce((n, m) => n + m.seconds, 0);
  const result = {
    at: new Date().toISOString(),
    database: process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
    minutes: MINUTES,
    rate_target: RATE,
    sessions: SESSIONS,
    loadavg: os.loadavg().map((x) => round(x)),
    cpus: os.cpus().length,
    requests,
    errors,
    load_seconds: round(seconds, 1),
    achieved_rps: round(requests / seconds, 0),
    held_target_rate: requests / seconds >= RATE * 0.98,
    heap_after_gc_warm_mib: warm.heap_used_mib,
    heap_after_gc_end_mib: last.heap_used_mib,
    heap_growth_pct: growthPct,
    pass_within_5pct: Math.abs(growthPct) <= 5,
    samples,
    per_minute: minutes,
  };
  const file = writeResult('soak', result.at, result);
  process.stdout.write(`${JSON.stringify({ ...result, samples: undefined, per_minute: undefined })}\nwritten: ${file}\n`);
  for (const c of [gateway.child, upstream.child]) c.kill('SIGTERM');
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
