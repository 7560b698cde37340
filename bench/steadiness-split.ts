/**
 * What varies when the gateway's CPU per call varies (issue 33, steadiness): one gateway process
 * (production path; PostgreSQL with BENCH_DATABASE_URL, PGlite otherwise), SPLIT_TRIALS
 * 32-client trials of SPLIT_MS each, back to back, and per trial: the gateway's user and system
 * CPU per call (from /proc/<pid>/stat), its voluntary and involuntary context switches per call
 * (/proc/<pid>/status), the PostgreSQL server's CPU per call (all `postgres` processes, /proc),
 * and the throughput. If the user time per call is steady while the total is not, the variance is
 * in the kernel (network, scheduling); if the PostgreSQL server's CPU moves with it, the database
 * competes for the gateway's core.
 * SPLIT_PIN_POSTGRES=<core>: pins every `postgres` process (server and backends; new backends inherit
 * it from the server) to that core first, to see whether the database preempts the gateway on its
 * own core (0): with 1, the database shares the upstream's and the load client's core instead.
 * Usage: npx tsx bench/steadiness-split.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { echoBundleTarget, pin, startProcess } from './harness.js';
import { closedLoop } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TRIALS = Number(process.env.SPLIT_TRIALS ?? 10);
const RUN_MS = Number(process.env.SPLIT_MS ?? 3000);
const TICK = 100; // USER_HZ

/** utime and stime (seconds) of one process, or of all its threads. */
function times(pid: number): { user: number; sys: number } {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(f[11]) / TICK, sys: Number(f[12]) / TICK };
}

function switches(pid: number): { voluntary: number; involuntary: number } {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    voluntary: Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(s)![1]),
    involuntary: Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(s)![1]),
  };
}

/** Every process named `postgres` (the server and its backends) with its CPU seconds. */
function postgresProcesses(): { pid: number; seconds: number }[] {
  const out: { pid: number; seconds: number }[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const f = stat.split(') ')[1]!.split(' ');
      out.push({ pid: Number(entry), seconds: (Number(f[11]) + Number(f[12])) / TICK });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

const postgresSeconds = (): number => postgresProcesses().reduce((a, p) => a + p.seconds, 0);

const PIN_POSTGRES = process.env.SPLIT_PIN_POSTGRES;
if (PIN_POSTGRES !== undefined) for (const p of postgresProcesses()) pin(p.pid, Number(PIN_POSTGRES));

const upstream = await startProcess(['--import', 'tsx', path.join(HERE, 'upstream.ts')], 1);
const gateway = await startProcess([...benchNodeFlags(), gatewayEntry(), String(upstream.info.port)], 0, { ipc: true });
try {
  const pid = gateway.child.pid!;
  const target = await echoBundleTarget(gateway.info, 32, 'steadiness-split');
  // The gateway's own backends started after the server was pinned: pin them too.
  if (PIN_POSTGRES !== undefined) for (const p of postgresProcesses()) pin(p.pid, Number(PIN_POSTGRES));
  for (const clients of [8, 32]) await closedLoop(target, clients, 2000);
  const rows = [];
  for (let t = 0; t < TRIALS; t++) {
    const t0 = times(pid);
    const s0 = switches(pid);
    const p0 = postgresSeconds();
    const r = await closedLoop(target, 32, RUN_MS);
    const t1 = times(pid);
    const s1 = switches(pid);
    const p1 = postgresSeconds();
    const per = (x: number) => Math.round((x * 1e6) / r.requests);
    const row = {
      trial: t + 1,
      rps: r.rps,
      user_us: per(t1.user - t0.user),
      sys_us: per(t1.sys - t0.sys),
      total_us: per(t1.user - t0.user + t1.sys - t0.sys),
      postgres_us: per(p1 - p0),
      vol_switches_per_call: Math.round(((s1.voluntary - s0.voluntary) / r.requests) * 100) / 100,
      invol_switches_per_call: Math.round(((s1.involuntary - s0.involuntary) / r.requests) * 1000) / 1000,
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
} finally {
  gateway.child.kill('SIGTERM');
  upstream.child.kill('SIGTERM');
}
