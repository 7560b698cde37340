/**
 * What a recorded call costs the database: batches of call records written through
 * the production store (`CallRecordsStore.insertMany`: the records, their rollups and histograms
 * in one statement) into a schema of its own on PostgreSQL, one batch after the other. Reports,
 * per record, the PostgreSQL backend's CPU (from /proc: the server must run on this machine),
 * this process's CPU (building the batch and the statement), the wall time, and the bytes of the
 * records' JSON parameter.
 * Usage: npx tsx bench/call-records.ts [batch=500] [batches=100]
 *   (BENCH_DATABASE_URL, default the local server; the schema is dropped at the end)
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallRecord } from '../src/domain/call-records.js';
import { createLogger } from '../src/logger.js';
import { CallRecordsStore, recordRow } from '../src/stores/call-records-store.js';
import { migrateToLatest, openDatabase } from '../src/stores/database.js';
import { cpuSeconds, writeResult } from './harness.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BATCH = Number(process.argv[2] ?? 500);
const BATCHES = Number(process.argv[3] ?? 100);
const url = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const schema = `tg_records_${process.pid}`;
const logger = createLogger({ logLevel: 'warn' });
const db = openDatabase({ databaseUrl: url, databaseSchema: schema, dataDir: HERE }, logger);
await migrateToLatest(db, logger, { schema });
const store = new CallRecordsStore(db.knex);

const ids = { bundle: randomUUID(), server: randomUUID(), tool: randomUUID(), user: randomUUID(), key: randomUUID() };
const batch = (): CallRecord[] =>
  Array.from({ length: BATCH }, (_, i) => ({
    occurred_at: new Date(),
    endpoint: 'bundle',
    bundle_id: ids.bundle,
    server_id: ids.server,
    server_name: 'bench',
    tool_id: ids.tool,
    tool_name: 'echo',
    user_id: ids.user,
    api_key_id: ids.key,
    oauth_client_id: null,
    status: i % 50 === 0 ? 'tool_error' : 'ok',
    latency_ms: Math.round(Math.random() * 5000) / 1000,
    error: i % 50 === 0 ? 'the tool reported an error' : null,
  }));

const backends = async (): Promise<number[]> =>
  (
    (await db.knex.raw("select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'")) as {
      rows: { pid: number }[];
    }
  ).rows.map((r) => r.pid);

for (let i = 0; i < 5; i++) await store.insertMany(batch()); // warm-up: connection, plan, JIT of this process
const pids = await backends();
const batches = Array.from({ length: BATCHES }, batch);
// The records' JSON as the statement receives it (what `insertMany` sends as its first parameter).
const bytesPerRecord = Math.round(JSON.stringify(batches[0]!.map(recordRow)).length / BATCH);
const pgBefore = pids.map(cpuSeconds);
const ownBefore = process.cpuUsage();
const started = performance.now();
for (const b of batches) await store.insertMany(b);
const wallMs = performance.now() - started;
const own = process.cpuUsage(ownBefore);
const pgSeconds = pids.reduce((sum, pid, i) => sum + cpuSeconds(pid) - pgBefore[i]!, 0);
const records = BATCH * BATCHES;
const result = {
  time: new Date().toISOString(),
  batch: BATCH,
  batches: BATCHES,
  postgres_cpu_us_per_record: Math.round((pgSeconds * 1e7) / records) / 10,
  gateway_cpu_us_per_record: Math.round(((own.user + own.system) * 10) / records) / 10,
  wall_us_per_record: Math.round((wallMs * 1e4) / records) / 10,
  json_bytes_per_record: bytesPerRecord,
};
console.log(JSON.stringify(result));
writeResult('call-records', result.time, result);
await db.knex.raw('drop schema ?? cascade', [schema]);
await db.close();
