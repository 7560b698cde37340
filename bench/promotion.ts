/**
 * What a call leaves to the garbage collector: the gateway (production build and flags,
 * PostgreSQL unless PROMOTION_DB=pglite) under closed-loop `tools/call` echo (1 KiB) at 32
 * clients, with V8's `--trace-gc-nvp`; over the measured run, the young-generation collections
 * (count, pause), the bytes they copied and promoted to the old generation per call, and the
 * mark-compacts those promotions cost. Objects that die with their call are free to a scavenge;
 * what a scavenge finds alive is copied, and what it finds alive twice is promoted and waits for a
 * full collection, so promoted bytes per call is the measure of what outlives a call.
 * Usage: npx tsx bench/promotion.ts [method=call|ping] [ms=3000]
 *   GATEWAY_ENTRY=<dir>/bench/gateway.js runs another build (an A/B of two builds, one after the other);
 *   PROMOTION_CPU_PROFILE=<file> writes a CPU profile of the measured run (100 µs sampling).
 * Prints one JSON line and writes it to bench/results/promotion-<time>.json.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ask, echoBundleTarget, pin, startProcess, writeResult } from './harness.js';
import { closedLoop } from './load.js';
import { benchNodeFlags, gatewayEntry } from './production-flags.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const METHOD = process.argv[2] === 'ping' ? 'ping' : 'call';
const RUN_MS = Number(process.argv[3] ?? 3000);
const CLIENTS = 32;

pin(process.pid, 1);
const upstream = await startProcess(['--import', 'tsx', path.join(HERE, 'upstream.ts')], 1);
const entry = process.env.GATEWAY_ENTRY ? path.resolve(process.env.GATEWAY_ENTRY) : gatewayEntry();
// Not startProcess: the trace lines share stdout with the gateway's ready line, and must be read on.
const gw = spawn(process.execPath, [...benchNodeFlags(), '--trace-gc-nvp', '--expose-gc', entry, String(upstream.info.port)], {
  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  env: { ...process.env, BENCH_DATABASE_URL: process.env.PROMOTION_DB === 'pglite' ? '' : 'postgres://postgres@127.0.0.1:5432/test' },
});
pin(gw.pid!, 0);
let trace: string[] | undefined;
const info = await new Promise<{ port: number; echoKey: string }>((resolve, reject) => {
  readline.createInterface({ input: gw.stdout! }).on('line', (line) => {
    if (line.startsWith('{')) resolve(JSON.parse(line));
    else if (trace && line.includes(' pause=')) trace.push(line);
  });
  gw.once('exit', (code) => reject(new Error(`gateway exited ${code}`)));
});
pin(gw.pid!, 0); // again: threads started since

const echo = await echoBundleTarget(info, CLIENTS, 'promotion');
const target =
  METHOD === 'ping'
    ? { ...echo, body: (seq: number) => JSON.stringify({ jsonrpc: '2.0', id: seq, method: 'ping', params: { pad: 'x'.repeat(1024) } }) }
    : echo;
await closedLoop(target, CLIENTS, 2000);
trace = [];
// PROMOTION_CPU_PROFILE=<file>: a CPU profile of the measured run too (the gateway's steady state).
const profile = process.env.PROMOTION_CPU_PROFILE;
if (profile) await ask(gw, { cmd: 'cpu-profile-start' });
const run = await closedLoop(target, CLIENTS, RUN_MS);
if (profile) await ask(gw, { cmd: 'cpu-profile-stop', file: path.resolve(profile) });
const lines = trace;
trace = undefined;

const entries = lines.map((l) => Object.fromEntries([...l.matchAll(/(\S+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
const sum = (rows: Record<string, string>[], key: string) => rows.reduce((a, r) => a + Number(r[key] ?? 0), 0);
const scavenges = entries.filter((e) => e.gc === 's');
const full = entries.filter((e) => e.gc !== 's');
const per = (bytes: number) => Math.round(bytes / run.requests);
const result = {
  time: new Date().toISOString(),
  method: METHOD,
  db: process.env.PROMOTION_DB === 'pglite' ? 'pglite' : 'postgres',
  entry: path.relative(process.cwd(), entry),
  clients: CLIENTS,
  calls: run.requests,
  rps: run.rps,
  errors: run.errors,
  scavenges: scavenges.length,
  scavenge_ms: Math.round(sum(scavenges, 'pause')),
  scavenge_us_per_call: Math.round((sum(scavenges, 'pause') * 1000) / run.requests),
  copied_bytes_per_call: per(sum(scavenges, 'new_space_survived')),
  promoted_bytes_per_call: per(sum(scavenges, 'promoted')),
  full_gcs: full.length,
  full_gc_ms: Math.round(sum(full, 'pause')),
};
console.log(JSON.stringify(result));
writeResult('promotion', result.time, result);
gw.kill('SIGTERM');
upstream.child.kill('SIGTERM');
