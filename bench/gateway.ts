/**
 * Bench gateway process (G): Toolgate with its production stack (credential check by key hash,
 * bundle policy, call records, embedded PGlite, the upstream pool's MCP SDK client over the lean
 * Streamable HTTP transport), debug logging off. Registers the bench upstream as a real
 * `streamable_http` server through the REST API, adds 1,000 catalog tools from 50 synthetic servers
 * for the list scenario, creates the bundles through the REST API, prints {"port", "echoKey",
 * "listKey"} and answers `{cmd: "heap"}` over IPC with the heap after a full GC (for the session
 * memory scenario). Run with --expose-gc.
 *
 * The benches run it compiled, as production runs the server: `gatewayEntry()` (bench/production-flags.ts)
 * runs `scripts/build-server.mjs --bench`, which transpiles the server into dist/ (as `npm start`
 * does) and this file into dist/bench/gateway.js; compiled, it loads the server from dist/, so the
 * process has no tsx in it. Run as .ts (through tsx) it loads src/ instead.
 * Usage: node --expose-gc dist/bench/gateway.js <upstream-port | stdio>
 *    or: node --expose-gc --import tsx bench/gateway.ts ... (the sources)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { Session } from 'node:inspector';
import { PerformanceObserver } from 'node:perf_hooks';
import knexFactory from 'knex';
import type * as ConfigModule from '../src/config.js';
import type * as LoggerModule from '../src/logger.js';
import type * as ServerModule from '../src/server.js';
import type * as BootstrapModule from '../src/services/identity/bootstrap-service.js';
import type * as TracingModule from '../src/telemetry/tracing.js';
import type * as CallRecordsStoreModule from '../src/stores/call-records-store.js';
import type { CatalogTool } from '../src/domain/catalog.js';

// <build>/bench/gateway.js → the repository two folders up, the server in <build>/ (dist/, or a copy
// of it beside dist/ for bench/build-ab.ts); bench/gateway.ts → src/.
const COMPILED = !import.meta.url.endsWith('.ts');
const ROOT = fileURLToPath(new URL(COMPILED ? '../../' : '../', import.meta.url));
const SERVER_DIR = COMPILED ? new URL('../', import.meta.url) : pathToFileURL(`${path.join(ROOT, 'src')}/`);
const serverModule = async <T>(name: string): Promise<T> => (await import(new URL(name, SERVER_DIR).href)) as T;
const { loadConfig } = await serverModule<typeof ConfigModule>('config.js');
const { createLogger } = await serverModule<typeof LoggerModule>('logger.js');
const { startServer } = await serverModule<typeof ServerModule>('server.js');
const { bootstrapOwner } = await serverModule<typeof BootstrapModule>('services/identity/bootstrap-service.js');
// Tracing as `npm start` has it: on when the OTEL_* variables ask for it (bench/tracing.ts).
const { startTracing, tracingConfigFromEnv } = await serverModule<typeof TracingModule>('telemetry/tracing.js');
const tracing = tracingConfigFromEnv();
if (tracing) startTracing(tracing, 'bench');

const upstreamPort = Number(process.argv[2]);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-'));
// BENCH_DATABASE_URL: run on PostgreSQL (a schema of its own, dropped at the end) instead of the embedded PGlite.
const pgUrl = process.env.BENCH_DATABASE_URL || undefined;
const pgSchema = pgUrl ? `tg_bench_${process.pid}` : undefined;
const config = loadConfig({
  ...(pgUrl && pgSchema ? { DATABASE_URL: pgUrl, TOOLGATE_DB_SCHEMA: pgSchema } : {}),
  PORT: '0',
  HOST: '127.0.0.1',
  TOOLGATE_DATA_DIR: dataDir,
  // BENCH_LOG_LEVEL (e.g. warn: no access lines) measures what logging costs; production logs at info.
  TOOLGATE_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  // The bench upstream listens on loopback, which the outbound-address policy refuses unless allow-listed.
  TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*',
});
// BENCH_CALL_RECORDS=off: the call records are dropped instead of written (what writing them costs
// the process in memory and CPU, ADR 0015); a measurement knob, never a production setting.
if (process.env.BENCH_CALL_RECORDS === 'off') {
  const { CallRecordsStore } = await serverModule<typeof CallRecordsStoreModule>('stores/call-records-store.js');
  CallRecordsStore.prototype.insertMany = async () => undefined;
}
const server = await startServer(config, {
  // As in production (the buffered JSON destination of stdout), into /dev/null.
  logger: createLogger(config, '/dev/null'),
  // BENCH_RECORD_BATCH: call records per insert instead of the default 500 (what the batch size costs).
  ...(process.env.BENCH_RECORD_BATCH ? { callRecorder: { batchSize: Number(process.env.BENCH_RECORD_BATCH) } } : {}),
});
const s = server.services;
const { key: ownerKey } = await bootstrapOwner(s, { email: 'bench@example.com' });

function tool(serverId: string, serverName: string, name: string): CatalogTool {
  return {
    id: randomUUID(),
    serverId,
    serverName,
    name,
    title: null,
    description: `Benchmark tool ${name} of ${serverName}, which does nothing in particular but has a realistic description.`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer' } }, required: ['text'] },
    outputSchema: null,
    annotations: null,
    meta: null,
    enabled: true,
    available: true,
  };
}
const empty = { resources: [], resourceTemplates: [], prompts: [] };
async function api(method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
  return res.json();
}
// argv[2] = 'stdio': the upstream is bench/stdio-upstream.mjs over stdio (the peers comparison, bench/peers.ts).
const registered = await api(
  'POST',
  '/api/v1/servers',
  process.argv[2] === 'stdio'
    ? { name: 'bench', transport: 'stdio', command: process.execPath, args: [path.join(ROOT, 'bench', 'stdio-upstream.mjs')] }
    : { name: 'bench', transport: 'streamable_http', url: `http://127.0.0.1:${upstreamPort}/` },
);
for (let i = 0; ; i++) {
  const state = await api('GET', `/api/v1/servers/${registered.id}`);
  if (state.status === 'connected' && state.tool_count > 0) break;
  if (i > 200) throw new Error(`bench upstream did not connect: ${JSON.stringify(state)}`);
  await new Promise((r) => setTimeout(r, 50));
}
const benchTools = s.catalog.toolsOfServer(registered.id).filter((t) => t.name === 'echo' || t.name === 'sleep') as CatalogTool[];
const listTools: CatalogTool[] = [];
for (let i = 0; i < 50; i++) {
  const id = randomUUID();
  const tools = Array.from({ length: 20 }, (_, j) => tool(id, `server_${i}`, `tool_${i}_${j}`));
  s.catalog.putServer(id, { name: `server_${i}`, enabled: true, connected: true, tools, ...empty });
  listTools.push(...tools);
}

async function createBundle(name: string, tools: CatalogTool[]): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/bundles`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, tools: tools.map((t) => ({ tool_id: t.id })) }),
  });
  if (res.status !== 201) throw new Error(`bundle creation failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { bundle_key: string }).bundle_key;
}
const echoKey = await createBundle('bench echo', benchTools);
const listKey = await createBundle('bench 1000 tools', listTools);

// IPC commands, one reply each (`ask` in bench/harness.ts):
// {cmd: "heap"}: the heap after a full GC. {cmd: "memory"}: where the memory goes.
// {cmd: "heap-sample-start"} / {cmd: "heap-sample-stop", file}: V8's sampling heap profiler between the
// two, keeping the samples of objects no young-generation collection freed (they outlived a scavenge,
// or were allocated in the old generation): what lives past a call, or is pretenured (bench/stalls.ts).
// BENCH_HEAP_SAMPLE_ALL=1 keeps every sample (where a call's allocations come from).
// {cmd: "heap-snapshot", file}: a heap snapshot now (what is alive while calls flow).
// {cmd: "cpu-profile-start"} / {cmd: "cpu-profile-stop", file}: a CPU profile (100 µs sampling) of the
// steady state between the two, without the start-up `--cpu-prof` would include (bench/promotion.ts).
const gc = (globalThis as { gc?: () => void }).gc;
let heapSampler: Session | undefined;
let cpuProfiler: Session | undefined;
process.on('message', (msg: { cmd?: string; file?: string; gc?: boolean }) => {
  if (msg.cmd === 'heap') {
    gc?.();
    gc?.();
    process.send!({ heap: process.memoryUsage().heapUsed });
  }
  if (msg.cmd === 'memory') {
    // Where the memory goes: V8 heap, off-heap buffers (PGlite's WASM memory is an ArrayBuffer), RSS.
    // `gc: false` leaves the garbage in place (what the heap holds at this moment of a load).
    if (msg.gc !== false) gc?.();
    const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((x) => [x.space_name, Math.round(x.space_size / 1048576)]));
    process.send!({ memory: process.memoryUsage(), spaces, sessions: server.mcp.core.sessions.size });
  }
  if (msg.cmd === 'heap-sample-start') {
    heapSampler = new Session();
    heapSampler.connect();
    heapSampler.post(
      'HeapProfiler.startSampling',
      {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: process.env.BENCH_HEAP_SAMPLE_ALL === '1',
      },
      () => process.send!({ sampling: true }),
    );
  }
  if (msg.cmd === 'cpu-profile-start') {
    cpuProfiler = new Session();
    cpuProfiler.connect();
    cpuProfiler.post('Profiler.enable', () =>
      cpuProfiler!.post('Profiler.setSamplingInterval', { interval: 100 }, () =>
        cpuProfiler!.post('Profiler.start', () => process.send!({ profiling: true })),
      ),
    );
  }
  if (msg.cmd === 'cpu-profile-stop' && cpuProfiler) {
    cpuProfiler.post('Profiler.stop', (err, res) => {
      if (!err) fs.writeFileSync(msg.file!, JSON.stringify(res.profile));
      cpuProfiler!.disconnect();
      process.send!({ profiled: !err });
    });
  }
  if (msg.cmd === 'heap-snapshot') process.send!({ snapshot: v8.writeHeapSnapshot(msg.file) });
  if (msg.cmd === 'heap-sample-stop' && heapSampler) {
    heapSampler.post('HeapProfiler.stopSampling', (err, res) => {
      if (!err) fs.writeFileSync(msg.file!, JSON.stringify(res.profile));
      heapSampler!.disconnect();
      process.send!({ sampled: !err });
    });
  }
});
process.on('SIGTERM', async () => {
  await server.stop();
  if (pgUrl && pgSchema) {
    const knex = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await knex.raw('drop schema if exists ?? cascade', [pgSchema]).catch(() => undefined);
    await knex.destroy();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
// BENCH_STALL_LOG=1: event-loop stalls of 20 ms and more, and GC pauses of 5 ms and more, on stderr
// (what is behind a p99 under fixed load).
if (process.env.BENCH_STALL_LOG === '1') {
  // Every pause, summed by kind, for the summary line printed on SIGTERM.
  const totals = new Map<number, { n: number; ms: number }>();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
      const t = totals.get(kind) ?? { n: 0, ms: 0 };
      t.n += 1;
      t.ms += e.duration;
      totals.set(kind, t);
      if (e.duration >= 5) process.stderr.write(`gc ${kind} ${e.duration.toFixed(1)} ms\n`);
    }
  }).observe({ entryTypes: ['gc'] });
  process.prependListener('SIGTERM', () => {
    for (const [kind, t] of totals)
      process.stderr.write(`gc-total ${kind} ${t.n} pauses ${t.ms.toFixed(0)} ms mean ${(t.ms / t.n).toFixed(2)} ms\n`);
  });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last >= 30) process.stderr.write(`stall ${(now - last - 10).toFixed(1)} ms\n`);
    last = now;
  }, 10).unref();
}
process.stdout.write(`${JSON.stringify({ port: server.port, echoKey, listKey })}\n`);
