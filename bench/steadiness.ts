/**
 * Steadiness (issue 33): is the cost of a call the same from one start of the gateway to the next?
 * Runs RUNS separate gateway processes one after the other for each database (PostgreSQL with an
 * HTTP upstream, and the embedded PGlite), as a user restarting it would, each on a new data
 * directory or schema. In each run: 32 sessions, a warm-up, then TRIALS interleaved trials of the
 * direct upstream (D) and the gateway at 1 and at 32 clients (RUN_MS each). Per run it keeps the
 * median trial: added p50 at 1 client (gateway − D), throughput at 32 clients ÷ D, and the
 * gateway's CPU per call at 32 clients (utime + stime of the whole process, PGlite's thread
 * included, from /proc). Across runs: best, worst, worst ÷ best, and the median run.
 *
 * Targets (BENCHMARKS.md "Steadiness"): CPU per call at 32 clients varies ≤ 1.25 × between the best
 * and the worst run on both databases; median of the PostgreSQL runs: added p50 ≤ +0.15 ms,
 * throughput ≥ 0.75 × D, CPU per call ≤ 150 µs; embedded: throughput ≥ 0.55 × D.
 *
 * Pinning as bench/run.ts: gateway on core 0, upstream and load client on core 1.
 * STEADY_PROFILE_DIR=<dir>: after the measured trials, one more 32-client trial of each run under
 * V8's CPU profiler (not counted), written as <dir>/<db>-run<N>.cpuprofile, to set a good run's
 * profile beside a bad one's.
 * Usage: npm run bench:steadiness   (STEADY_RUNS, STEADY_TRIALS, STEADY_RUN_MS, STEADY_DBS=postgresql,pglite;
 * BENCH_QUICK=1: 2 runs of one short trial). Results: bench/results/steadiness-<time>.json.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ask, cpuSeconds, echoBundleTarget, echoCallBody, MCP_JSON, median, pin, startProcess, writeResult } from './harness.js';
import { closedLoop, type RunResult, type Target } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';
const RUNS = Number(process.env.STEADY_RUNS ?? (QUICK ? 2 : 5));
const TRIALS = Number(process.env.STEADY_TRIALS ?? (QUICK ? 1 : 3));
const RUN_MS = Number(process.env.STEADY_RUN_MS ?? (QUICK ? 800 : 3000));
const PG_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const DBS = (process.env.STEADY_DBS ?? 'postgresql,pglite').split(',').filter((d): d is Db => d === 'postgresql' || d === 'pglite');
const PROFILE_DIR = process.env.STEADY_PROFILE_DIR;
type Db = 'postgresql' | 'pglite';

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

/** One start of the gateway: its median figures against the direct upstream of the same run. */
interface Run {
  run: number;
  added_p50_ms_1: number;
  throughput_over_d_32: number;
  cpu_us_per_call_32: number;
  gateway_rps_32: number;
  direct_rps_32: number;
  errors: number;
  /** The machine's 1-minute load average at the end of the run (other work on the cores shows here). */
  loadavg_1m: number;
  trials: { clients: number; mode: 'D' | 'G'; result: RunResult; cpu_us_per_call: number | null }[];
}

async function oneRun(db: Db, run: number, upstreamPort: number, direct: Target): Promise<Run> {
  const gateway = await startProcess([...benchNodeFlags(), '--expose-gc', gatewayEntry(), String(upstreamPort)], 0, {
    ipc: true,
    env: { BENCH_DATABASE_URL: db === 'postgresql' ? PG_URL : '' },
  });
  try {
    const target = await echoBundleTarget(gateway.info, 32, 'steadiness');
    const pid = gateway.child.pid!;
    // Warm-up: JIT, the upstream pool, the call recorder's first batches.
    for (const clients of [8, 32]) await closedLoop(target, clients, QUICK ? 300 : 2000);
    const trials: Run['trials'] = [];
    for (let t = 0; t < TRIALS; t++) {
      for (const clients of [1, 32]) {
        trials.push({ clients, mode: 'D', result: await closedLoop(direct, clients, RUN_MS), cpu_us_per_call: null });
        const cpu0 = cpuSeconds(pid);
        const result = await closedLoop(target, clients, RUN_MS);
        const cpu = cpuSeconds(pid) - cpu0;
        trials.push({ clients, mode: 'G', result, cpu_us_per_call: result.requests ? round((cpu * 1e6) / result.requests, 1) : null });
      }
    }
    if (PROFILE_DIR) {
      await ask(gateway.child, { cmd: 'cpu-profile-start' });
      await closedLoop(target, 32, RUN_MS);
      await ask(gateway.child, { cmd: 'cpu-profile-stop', file: path.join(PROFILE_DIR, `${db}-run${run}.cpuprofile`) });
    }
    const pick = (mode: 'D' | 'G', clients: number) => trials.filter((t) => t.mode === mode && t.clients === clients);
    const p50 = (mode: 'D' | 'G') => median(pick(mode, 1).map((t) => t.result.p50_ms));
    const rps = (mode: 'D' | 'G') => median(pick(mode, 32).map((t) => t.result.rps));
    return {
      run,
      added_p50_ms_1: round(p50('G') - p50('D')),
      throughput_over_d_32: round(rps('G') / rps('D'), 3),
      cpu_us_per_call_32: median(pick('G', 32).map((t) => t.cpu_us_per_call ?? NaN)),
      gateway_rps_32: rps('G'),
      direct_rps_32: rps('D'),
      errors: trials.reduce((a, t) => a + t.result.errors, 0),
      loadavg_1m: round(os.loadavg()[0]!, 2),
      trials,
    };
  } finally {
    gateway.child.kill('SIGTERM');
    await new Promise((r) => gateway.child.once('exit', r));
  }
}

/** Best, worst, worst ÷ best and the median over the runs, of one figure. */
function spread(runs: Run[], key: 'added_p50_ms_1' | 'throughput_over_d_32' | 'cpu_us_per_call_32') {
  const xs = runs.map((r) => r[key]);
  const best = key === 'throughput_over_d_32' ? Math.max(...xs) : Math.min(...xs);
  const worst = key === 'throughput_over_d_32' ? Math.min(...xs) : Math.max(...xs);
  return { best, worst, worst_over_best: round(key === 'throughput_over_d_32' ? best / worst : worst / best, 2), median: median(xs) };
}

async function main(): Promise<void> {
  pin(process.pid, 1);
  const upstream = await startProcess(['--import', 'tsx', path.join(HERE, 'upstream.ts')], 1);
  const direct: Target = {
    origin: `http://127.0.0.1:${upstream.info.port}`,
    path: '/',
    headers: () => MCP_JSON,
    body: echoCallBody,
  };
  const byDb: Partial<Record<Db, Run[]>> = {};
  try {
    for (let run = 1; run <= RUNS; run++) {
      for (const db of DBS) {
        const r = await oneRun(db, run, upstream.info.port, direct);
        (byDb[db] ??= []).push(r);
        process.stderr.write(
          `${db} run ${run}: CPU ${r.cpu_us_per_call_32} µs/call @32, throughput ${r.throughput_over_d_32} × D @32, added p50 ${r.added_p50_ms_1} ms @1, errors ${r.errors}, load ${r.loadavg_1m}\n`,
        );
      }
    }
  } finally {
    upstream.child.kill('SIGTERM');
  }
  const summary = Object.fromEntries(
    Object.entries(byDb).map(([db, runs]) => [
      db,
      {
        cpu_us_per_call_32: spread(runs, 'cpu_us_per_call_32'),
        throughput_over_d_32: spread(runs, 'throughput_over_d_32'),
        added_p50_ms_1: spread(runs, 'added_p50_ms_1'),
      },
    ]),
  ) as Partial<Record<Db, Record<'cpu_us_per_call_32' | 'throughput_over_d_32' | 'added_p50_ms_1', ReturnType<typeof spread>>>>;
  const pg = summary.postgresql;
  const lite = summary.pglite;
  const verdicts = {
    ...(pg && {
      postgresql_cpu_spread_within_1_25: pg.cpu_us_per_call_32.worst_over_best <= 1.25,
      postgresql_median_added_p50_within_0_15_ms: pg.added_p50_ms_1.median <= 0.15,
      postgresql_median_throughput_at_least_0_75_d: pg.throughput_over_d_32.median >= 0.75,
      postgresql_median_cpu_within_150_us: pg.cpu_us_per_call_32.median <= 150,
    }),
    ...(lite && {
      pglite_cpu_spread_within_1_25: lite.cpu_us_per_call_32.worst_over_best <= 1.25,
      pglite_median_throughput_at_least_0_55_d: lite.throughput_over_d_32.median >= 0.55,
    }),
  };
  const at = new Date().toISOString();
  const result = {
    at,
    loadavg: os.loadavg().map((x) => round(x, 2)),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
    method: { runs: RUNS, trials: TRIALS, run_ms: RUN_MS, quick: QUICK, node_flags: benchNodeFlags().join(' ') },
    summary,
    verdicts,
    runs: byDb,
  };
  const file = writeResult('steadiness', at, result);
  process.stdout.write(`${JSON.stringify({ summary, verdicts }, null, 2)}\nwritten: ${file}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
