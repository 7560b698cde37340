import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { latencyBucket, latencyBucketValue, percentileRank, type Percent } from '../../src/lib/latency-histogram.js';
import type { CallRecord, CallStatus } from '../../src/domain/call-records.js';
import { NO_SERVER_ID } from '../../src/stores/call-records-store.js';

export const HOUR_MS = 3_600_000;

/** A call record as stored (the brute force reads these back from the table). */
export interface RawRecord extends CallRecord {
  id: string;
  call_id: string;
}

/** Every call record in the database, as stored. */
export async function rawRecords(knex: Knex): Promise<RawRecord[]> {
  const rows = (await knex('call_records').select('*')) as (RawRecord & { id: string | number })[];
  return rows.map((r) => ({ ...r, id: String(r.id), latency_ms: Number(r.latency_ms) }));
}

export const hourOf = (d: Date): number => Math.floor(d.getTime() / HOUR_MS) * HOUR_MS;
export const failed = (r: { status: CallStatus }): boolean => r.status !== 'ok';

/** The exact nearest-rank percentile of raw latencies; null without values. */
export function exactPercentile(values: readonly number[], percent: Percent): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[percentileRank(percent, sorted.length) - 1]!;
}

/**
 * What a histogram percentile must be for these raw values: the reported value of the exact
 * value's bucket. Also checks the 1 % bound on the way (returns the pair for the caller's expect).
 */
export function expectedPercentile(values: readonly number[], percent: Percent): { exact: number | null; reported: number | null } {
  const exact = exactPercentile(values, percent);
  return { exact, reported: exact === null ? null : latencyBucketValue(latencyBucket(exact)) };
}

/** Rollups recomputed from raw records: per hour × server (nil id for none). */
export function bruteRollups(
  records: readonly RawRecord[],
): Map<string, { calls: number; errors: number; latency: number; names: Set<string> }> {
  const out = new Map<string, { calls: number; errors: number; latency: number; names: Set<string> }>();
  for (const r of records) {
    const key = `${hourOf(r.occurred_at)}|${r.server_id ?? NO_SERVER_ID}`;
    const e = out.get(key) ?? { calls: 0, errors: 0, latency: 0, names: new Set<string>() };
    e.calls += 1;
    if (failed(r)) e.errors += 1;
    e.latency += r.latency_ms;
    if (r.server_name) e.names.add(r.server_name);
    out.set(key, e);
  }
  return out;
}

/** Hourly latency histograms recomputed from raw records. */
export function bruteHistograms(records: readonly RawRecord[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const r of records) {
    const hour = hourOf(r.occurred_at);
    const counts = out.get(hour) ?? [];
    const b = latencyBucket(r.latency_ms);
    while (counts.length <= b) counts.push(0);
    counts[b]! += 1;
    out.set(hour, counts);
  }
  return out;
}

/** A deterministic pseudo-random source (the same data on every run). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const STATUSES: CallStatus[] = ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'tool_error', 'error', 'timeout', 'cancelled'];

/**
 * Synthetic call records around `now`: spread over `hours` hours back with some hours left
 * empty, records on the exact edges of hours, latencies on and beside histogram bucket edges
 * and at 0, calls without a server, every status.
 */
export function syntheticRecords(input: {
  now: Date;
  count: number;
  hours: number;
  servers: readonly { id: string; name: string }[];
  seed: number;
  emptyHours?: readonly number[];
}): CallRecord[] {
  const random = rng(input.seed);
  const current = hourOf(input.now);
  const empty = new Set(input.emptyHours ?? []);
  const hoursBack = Array.from({ length: input.hours }, (_, i) => i).filter((h) => !empty.has(h));
  const out: CallRecord[] = [];
  for (let i = 0; i < input.count; i++) {
    const back = hoursBack[Math.floor(random() * hoursBack.length)]!;
    const start = current - back * HOUR_MS;
    // The first and last millisecond of an hour, and anywhere in it (never after now).
    const span = Math.min(HOUR_MS, input.now.getTime() - start + 1);
    const pick = random();
    const at = pick < 0.05 ? start : pick < 0.1 ? start + span - 1 : start + Math.floor(random() * span);
    const kind = random();
    const edge = 0.001 * Math.pow(1.02, Math.floor(random() * 900));
    const latency =
      kind < 0.02
        ? 0
        : kind < 0.15
          ? edge
          : kind < 0.25
            ? Math.round(edge * 0.999999 * 1000) / 1000 || 0.001
            : Math.round(Math.exp(random() * 9) * 1000) / 1000;
    const serverIndex = Math.floor(random() * (input.servers.length + 1));
    const server = input.servers[serverIndex];
    out.push({
      occurred_at: new Date(at),
      endpoint: random() < 0.5 ? 'bundle' : 'gateway',
      bundle_id: null,
      server_id: server?.id ?? null,
      server_name: server?.name ?? null,
      tool_id: randomUUID(),
      tool_name: `tool_${Math.floor(random() * 5)}`,
      user_id: null,
      api_key_id: null,
      oauth_client_id: null,
      status: STATUSES[Math.floor(random() * STATUSES.length)]!,
      latency_ms: latency,
      error: null,
    });
  }
  return out;
}

/** The rollup tables as stored. */
export async function storedRollups(knex: Knex) {
  const rollups = (await knex('call_rollups').select('*')) as Record<string, unknown>[];
  const histograms = (await knex('call_latency_histogram').select('hour', knex.raw('counts::text as counts'))) as {
    hour: Date;
    counts: string;
  }[];
  return {
    rollups: new Map(
      rollups.map((r) => [
        `${(r.hour as Date).getTime()}|${String(r.server_id)}`,
        { calls: Number(r.calls), errors: Number(r.errors), latency: Number(r.latency_sum_ms), name: r.server_name as string | null },
      ]),
    ),
    histograms: new Map(histograms.map((h) => [h.hour.getTime(), h.counts.slice(1, -1).split(',').map(Number)])),
  };
}

/** Asserts the rollups equal a brute-force aggregation of the raw records. */
export async function expectRollupsMatchRecords(knex: Knex): Promise<number> {
  const records = await rawRecords(knex);
  const stored = await storedRollups(knex);
  const expected = bruteRollups(records);
  expect([...stored.rollups.keys()].sort()).to.deep.equal([...expected.keys()].sort());
  for (const [key, e] of expected) {
    const s = stored.rollups.get(key)!;
    expect({ calls: s.calls, errors: s.errors }, key).to.deep.equal({ calls: e.calls, errors: e.errors });
    expect(s.latency, key).to.be.closeTo(e.latency, 1e-6 * Math.max(1, e.latency));
    if (e.names.size) expect(e.names.has(s.name ?? ''), key).to.equal(true);
  }
  const hist = bruteHistograms(records);
  expect([...stored.histograms.keys()].sort()).to.deep.equal([...hist.keys()].sort());
  for (const [hour, counts] of hist) expect(stored.histograms.get(hour), new Date(hour).toISOString()).to.deep.equal(counts);
  return records.length;
}
