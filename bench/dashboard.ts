/**
 * Dashboard benchmark: 1,000,000 call records over 100 servers in the last 24 hours,
 * written through the production path (`CallRecordsStore.insertMany`, which keeps the rollups),
 * then each dashboard operation timed over HTTP through the real server (authentication, rate
 * limit, validation, handler, service, store), on the embedded PGlite and on PostgreSQL. Also
 * measures how far the histogram percentiles are from the exact ones (computed here from every
 * latency written). Results: bench/results/dashboard-<database>.json; summary in BENCHMARKS.md.
 *
 * Usage: npm run bench:dashboard                 (both databases)
 *        npm run bench:dashboard -- pglite        (one; BENCH_RECORDS, BENCH_REQUESTS to scale)
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), own schema.
 */
import fs from 'node:fs';
import { resultsDir } from './harness.js';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import knexFactory from 'knex';
import { loadConfig } from '../src/config.js';
import { latencyBucket, latencyBucketValue, percentileRank, type Percent } from '../src/lib/latency-histogram.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { bootstrapOwner } from '../src/services/identity/bootstrap-service.js';
import type { CallRecord, CallStatus } from '../src/domain/call-records.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const SERVERS = 100;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const WARMUP = 20;
const BATCH = 5000;
const ACTIVITY_ENTRIES = 10_000;
const HOUR_MS = 3_600_000;
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A deterministic pseudo-random source. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function exact(values: Float64Array, percent: Percent): number {
  return values[percentileRank(percent, values.length) - 1]!;
}

async function pgReachable(): Promise<boolean> {
  const knex = knexFactory({
    client: 'pg',
    connection: { connectionString: PG_URL, connectionTimeoutMillis: 2000 },
    pool: { min: 0, max: 1 },
  });
  try {
    await knex.raw('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await knex.destroy();
  }
}

async function run(target: 'pglite' | 'postgres') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-dash-'));
  const schema = target === 'postgres' ? `tg_bench_dash_${process.pid}` : undefined;
  const config = loadConfig({
    PORT: '0',
    TOOLGATE_DATA_DIR: dataDir,
    TOOLGATE_LOG_LEVEL: 'silent',
    TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '1000000',
    // The registered servers stay disabled; their (unreachable) loopback address must still pass the policy.
    TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:9',
    ...(schema ? { DATABASE_URL: PG_URL, TOOLGATE_DB_SCHEMA: schema } : {}),
  });
  const server = await startServer(config, { logger: createLogger(config) });
  try {
    const s = server.services;
    const { key, userId } = await bootstrapOwner(s, { email: 'bench@example.com', name: 'Bench' });
    const random = rng(2026);

    // 100 registered servers (disabled: the benchmark measures the dashboard, not upstreams).
    const servers: { id: string; name: string; medianMs: number }[] = [];
    for (let i = 0; i < SERVERS; i++) {
      const row = await s.servers.create({
        name: `server-${String(i).padStart(3, '0')}`,
        transport: 'streamable_http',
        url: `http://127.0.0.1:9/mcp/${i}`,
        enabled: false,
      });
      servers.push({ id: row.id, name: row.name, medianMs: Math.exp(random() * 6) });
    }

    // 1,000,000 records in the last 24 hours, servers skewed (a few busy, a long tail), log-normal latencies.
    const now = Date.now();
    const times = new Float64Array(RECORDS);
    const latencies = new Float64Array(RECORDS);
    const statuses: CallStatus[] = ['ok', 'tool_error', 'error', 'timeout'];
    const seedStarted = performance.now();
    for (let off = 0; off < RECORDS; off += BATCH) {
      const batch: CallRecord[] = [];
      for (let i = off; i < Math.min(RECORDS, off + BATCH); i++) {
        const server = servers[Math.floor(Math.pow(random(), 2) * SERVERS)]!;
        const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
        const latency = Math.round(server.medianMs * Math.exp(0.8 * gaussian) * 1000) / 1000;
        const at = now - Math.floor(random() * (24 * HOUR_MS - 60_000));
        times[i] = at;
        latencies[i] = latency;
        batch.push({
          occurred_at: new Date(at),
          endpoint: i % 3 ? 'bundle' : 'gateway',
          bundle_id: null,
          server_id: server.id,
          server_name: server.name,
          tool_id: null,
          tool_name: `tool_${i % 10}`,
          user_id: i % 3 ? null : userId,
          api_key_id: null,
          oauth_client_id: null,
          status: random() < 0.97 ? 'ok' : statuses[1 + Math.floor(random() * 3)]!,
          latency_ms: latency,
          error: null,
        });
      }
      await s.stores.callRecords.insertMany(batch);
      if ((off / BATCH) % 40 === 0) console.log(`  ${target}: ${off + batch.length} records written`);
    }
    const seedMs = performance.now() - seedStarted;

    // Admin activity entries for the feed.
    const knex = s.db.knex;
    for (let i = 0; i < ACTIVITY_ENTRIES; i += 1000) {
      const rows = Array.from({ length: 1000 }, (_, j) => ({
        id: randomUUID(),
        occurred_at: new Date(now - Math.floor(random() * 24 * HOUR_MS)),
        actor_id: userId,
        actor_name: 'Bench',
        action: 'bundle.update',
        target_type: 'bundle',
        target_id: randomUUID(),
        target_name: `bundle ${i + j}`,
        outcome: random() < 0.05 ? 'error' : 'success',
        details: JSON.stringify({ n: i + j }),
      }));
      await knex('activity_log').insert(rows);
    }
    // As a settled database would be: statistics current, the bulk load vacuumed (not autovacuum mid-run).
    await knex.raw('vacuum analyze');

    // Each operation over HTTP, one client, after a warm-up.
    const operations = [
      ['GET /api/v1/dashboard', '/api/v1/dashboard'],
      ['GET /api/v1/dashboard?activity_filter=errors', '/api/v1/dashboard?activity_filter=errors'],
      ['GET /api/v1/dashboard/charts', '/api/v1/dashboard/charts'],
      ['GET /api/v1/dashboard/activity', '/api/v1/dashboard/activity'],
      ['GET /api/v1/dashboard/activity?activity_filter=errors', '/api/v1/dashboard/activity?activity_filter=errors'],
    ] as const;
    const get = async (p: string) => {
      const res = await fetch(`${server.url}${p}`, { headers: { authorization: `Bearer ${key}` } });
      const body = await res.json();
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
      return body as any;
    };
    const timings = [];
    for (const [label, p] of operations) {
      for (let i = 0; i < WARMUP; i++) await get(p);
      const ms: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const started = performance.now();
        await get(p);
        ms.push(performance.now() - started);
      }
      ms.sort((a, b) => a - b);
      const r = {
        operation: label,
        requests: REQUESTS,
        p50_ms: +quantile(ms, 0.5).toFixed(2),
        p95_ms: +quantile(ms, 0.95).toFixed(2),
        p99_ms: +quantile(ms, 0.99).toFixed(2),
        max_ms: +ms[ms.length - 1]!.toFixed(2),
        mean_ms: +(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(2),
      };
      console.log(`  ${target}: ${label.padEnd(56)} p50 ${r.p50_ms} ms  p95 ${r.p95_ms} ms  p99 ${r.p99_ms} ms`);
      timings.push(r);
    }

    // Percentile error: every reported percentile against the exact one over the same records.
    const [charts, dashboard] = [await get('/api/v1/dashboard/charts'), await get('/api/v1/dashboard')];
    const from = Date.parse(charts.window.from);
    const to = Date.parse(charts.window.to);
    const perHour = Array.from({ length: 24 }, () => [] as number[]);
    const all: number[] = [];
    for (let i = 0; i < RECORDS; i++) {
      const t = times[i]!;
      if (t < from || t >= to) continue;
      perHour[Math.floor((t - from) / HOUR_MS)]!.push(latencies[i]!);
      all.push(latencies[i]!);
    }
    const errors: number[] = [];
    let bucketMismatches = 0;
    const compare = (reported: number | null, values: number[], p: Percent) => {
      if (values.length === 0) return;
      const sorted = Float64Array.from(values).sort();
      const e = exact(sorted, p);
      if (reported === null) throw new Error('a percentile is null for an hour with calls');
      if (reported !== latencyBucketValue(latencyBucket(e))) bucketMismatches += 1;
      if (e > 0) errors.push(Math.abs(reported - e) / e);
    };
    charts.latency.forEach((b: any, i: number) => {
      compare(b.p50_ms, perHour[i]!, 50);
      compare(b.p95_ms, perHour[i]!, 95);
      compare(b.p99_ms, perHour[i]!, 99);
    });
    compare(dashboard.stats.p50_latency_ms_24h, all, 50);
    compare(dashboard.stats.p95_latency_ms_24h, all, 95);
    if (dashboard.stats.calls_24h !== all.length) throw new Error(`calls_24h ${dashboard.stats.calls_24h} != ${all.length}`);
    errors.sort((a, b) => a - b);
    const accuracy = {
      percentiles_compared: errors.length,
      max_relative_error: +errors[errors.length - 1]!.toFixed(5),
      mean_relative_error: +(errors.reduce((a, b) => a + b, 0) / errors.length).toFixed(5),
      bucket_mismatches: bucketMismatches,
    };
    console.log(
      `  ${target}: percentile error vs exact: max ${(accuracy.max_relative_error * 100).toFixed(3)} %, mean ${(accuracy.mean_relative_error * 100).toFixed(3)} % over ${accuracy.percentiles_compared} percentiles`,
    );
    const counts = (await knex.raw(
      'select (select count(*) from call_rollups) as rollups, (select count(*) from call_latency_histogram) as histograms',
    )) as {
      rows: { rollups: string; histograms: string }[];
    };
    const result = {
      benchmark: 'dashboard',
      database: s.db.kind,
      node: process.version,
      cpus: os.cpus().length,
      loadavg_at_end: os.loadavg().map((x) => +x.toFixed(2)),
      at: new Date().toISOString(),
      records: RECORDS,
      servers: SERVERS,
      activity_entries: ACTIVITY_ENTRIES,
      seed: { batch: BATCH, seconds: +(seedMs / 1000).toFixed(1), records_per_second: Math.round(RECORDS / (seedMs / 1000)) },
      rollup_rows: Number(counts.rows[0]!.rollups),
      histogram_rows: Number(counts.rows[0]!.histograms),
      operations: timings,
      accuracy,
    };
    fs.mkdirSync(resultsDir(), { recursive: true });
    fs.writeFileSync(path.join(resultsDir(), `dashboard-${s.db.kind}.json`), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    await server.stop();
    if (schema) {
      const knex = knexFactory({ client: 'pg', connection: PG_URL, pool: { min: 0, max: 1 } });
      await knex.raw('drop schema if exists ?? cascade', [schema]).finally(() => knex.destroy());
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const targets = (process.argv.slice(2).length ? process.argv.slice(2) : ['pglite', 'postgres']) as ('pglite' | 'postgres')[];
let failedTarget = false;
for (const target of targets) {
  if (target === 'postgres' && !(await pgReachable())) {
    console.log(`postgres: not reachable at ${PG_URL}; skipped`);
    continue;
  }
  console.log(`${target}: ${RECORDS} records over ${SERVERS} servers`);
  const r = await run(target);
  const slow = r.operations.filter((o) => o.p95_ms > 50);
  if (slow.length) console.log(`  ${target}: over the 50 ms p95 target: ${slow.map((o) => o.operation).join(', ')}`);
  if (r.accuracy.max_relative_error > 0.02) console.log(`  ${target}: percentile error above 2 %`);
  failedTarget ||= slow.length > 0 || r.accuracy.max_relative_error > 0.02;
}
process.exitCode = failedTarget ? 1 : 0;
