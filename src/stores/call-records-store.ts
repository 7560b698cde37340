import type { Knex } from 'knex';
import type { CallRecord, CallRecordSink } from '../domain/call-records.js';
import { latencyBucket } from '../lib/latency-histogram.js';
import { jsonWithoutNul } from './postgres-text.js';

export type DbCallRecordRow = CallRecord & { id: string; call_id: string };

/** Rollup key of calls that name no server (the nil UUID; never a registered server's id). */
export const NO_SERVER_ID = '00000000-0000-0000-0000-000000000000';

const HOUR_MS = 3_600_000;

const COLUMNS = [
  'id',
  'call_id',
  'occurred_at',
  'endpoint',
  'bundle_id',
  'server_id',
  'server_name',
  'tool_id',
  'tool_name',
  'user_id',
  'api_key_id',
  'status',
  'latency_ms',
  'error',
] as const;

const INSERT_COLUMNS = COLUMNS.filter((c) => c !== 'id' && c !== 'call_id');

/**
 * How the statement reads each column from a record's JSON array (the order of `recordRow`):
 * `occurred_at` and the hour it falls in come from epoch milliseconds.
 */
const RECORD_FIELDS = [
  'to_timestamp((e->>0)::float8 / 1000) as occurred_at',
  'e->>1 as endpoint',
  '(e->>2)::uuid as bundle_id',
  '(e->>3)::uuid as server_id',
  'e->>4 as server_name',
  '(e->>5)::uuid as tool_id',
  'e->>6 as tool_name',
  '(e->>7)::uuid as user_id',
  '(e->>8)::uuid as api_key_id',
  'e->>9 as status',
  '(e->>10)::float8 as latency_ms',
  'e->>11 as error',
  `to_timestamp(floor((e->>0)::float8 / ${HOUR_MS}) * ${HOUR_MS / 1000}) as hour`,
].join(', ');

/** A record as the statement reads it: a JSON array, the columns in RECORD_FIELDS' order. */
function recordRow(r: CallRecord): unknown[] {
  return [
    r.occurred_at.getTime(),
    r.endpoint,
    r.bundle_id,
    r.server_id,
    r.server_name,
    r.tool_id,
    r.tool_name,
    r.user_id,
    r.api_key_id,
    r.status,
    r.latency_ms,
    r.error,
  ];
}

/**
 * One statement: the records, their per hour × server rollups and their hourly latency
 * histograms, all or nothing. Rollup rows are upserted in key order, so two instances writing the
 * same hours never deadlock; histograms are added element-wise (index = latency bucket). Records
 * travel as arrays with the time in epoch milliseconds (issue 13): against objects with ISO dates,
 * a batch costs the gateway a third of the CPU to serialise, is 40 % shorter on the wire, and
 * costs PostgreSQL about a fifth less to unpack.
 */
const INSERT_SQL = `
with r as materialized (
  select ${RECORD_FIELDS} from jsonb_array_elements(?::jsonb) as e
),
inserted as (
  insert into call_records (${INSERT_COLUMNS.join(', ')})
  select ${INSERT_COLUMNS.join(', ')} from r
),
rolled as (
  insert into call_rollups as c (hour, server_id, server_name, calls, errors, latency_sum_ms)
  select hour, coalesce(server_id, '${NO_SERVER_ID}'::uuid), max(server_name),
         count(*), count(*) filter (where status <> 'ok'), sum(latency_ms)
  from r group by 1, 2 order by 1, 2
  on conflict (hour, server_id) do update
    set calls = c.calls + excluded.calls,
        errors = c.errors + excluded.errors,
        latency_sum_ms = c.latency_sum_ms + excluded.latency_sum_ms,
        server_name = coalesce(excluded.server_name, c.server_name)
)
insert into call_latency_histogram as h (hour, counts)
select hour, counts from jsonb_to_recordset(?::jsonb) as x(hour timestamptz, counts bigint[]) order by hour
on conflict (hour) do update
  set counts = (select array_agg(coalesce(a, 0) + coalesce(b, 0) order by i)
                from unnest(h.counts, excluded.counts) with ordinality as u(a, b, i))`;

/** Persistence of call records and of the rollups that are kept with them. */
export class CallRecordsStore implements CallRecordSink {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /**
   * Inserts a batch and folds it into the rollups in one statement with one parameter (a JSON
   * array unpacked by the database), so a batch of hundreds costs one small query to build and
   * parse instead of thousands of bindings, and the rollups never disagree with the records.
   */
  async insertMany(records: readonly CallRecord[]): Promise<void> {
    if (records.length === 0) return;
    const histograms = new Map<number, number[]>();
    const rows = records.map((r) => {
      const hour = Math.floor(r.occurred_at.getTime() / HOUR_MS) * HOUR_MS;
      let counts = histograms.get(hour);
      if (!counts) histograms.set(hour, (counts = []));
      const bucket = latencyBucket(r.latency_ms);
      for (let i = counts.length; i <= bucket; i++) counts.push(0);
      counts[bucket]! += 1;
      return recordRow(r);
    });
    const hours = [...histograms].map(([hour, counts]) => ({ hour: new Date(hour), counts }));
    // A caller may send U+0000 in a tool name, which jsonb refuses: it is stored as U+FFFD.
    await this.db.raw(INSERT_SQL, [jsonWithoutNul(rows), JSON.stringify(hours)]);
  }

  /** The most recent records first (optionally of one bundle). */
  async recent(input: { limit: number; bundleId?: string }): Promise<DbCallRecordRow[]> {
    const q = this.db('call_records')
      .select(COLUMNS)
      .orderBy([
        { column: 'occurred_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ]);
    if (input.bundleId) q.where({ bundle_id: input.bundleId });
    const rows = (await q.limit(input.limit)) as (DbCallRecordRow & { id: string | number })[];
    return rows.map((r) => ({ ...r, id: String(r.id), latency_ms: Number(r.latency_ms) }));
  }
}
