import type { Knex } from 'knex';
import { isServerError, type CallRecord, type CallRecordSink } from '../domain/call-records.js';
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
  'oauth_client_id',
  'redactions',
  'interceptions',
] as const;

const INSERT_COLUMNS = COLUMNS.filter((c) => c !== 'id' && c !== 'call_id');

/** How the statement reads each column from a record's JSON array (the order of `recordRow`). */
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
  'e->>12 as oauth_client_id',
  'coalesce((e->>13)::int, 0) as redactions',
  "nullif(e->14, 'null'::jsonb) as interceptions",
].join(', ');

/** A record as the statement reads it: a JSON array, the columns in RECORD_FIELDS' order. */
export function recordRow(r: CallRecord): unknown[] {
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
    r.oauth_client_id,
    r.redactions ?? 0,
    r.interceptions ?? null,
  ];
}

/**
 * One statement: the records, their per hour × server rollups and their hourly latency
 * histograms, all or nothing. The batch's rollup rows and histograms are summed here; the
 * statement adds them to the stored ones, rollup rows upserted in key order, so two instances
 * writing the same hours never deadlock, histograms element-wise (index = latency bucket).
 * Records travel as arrays with the time in epoch milliseconds, the cheaper form: against objects
 * with ISO dates, a batch costs the gateway a third of the CPU to serialise and is 40 % shorter on
 * the wire; with the rollups summed here rather than grouped from the inserted rows, the statement
 * costs PostgreSQL about a third less per record.
 */
const INSERT_SQL = `
with inserted as (
  insert into call_records (${INSERT_COLUMNS.join(', ')})
  select ${RECORD_FIELDS} from jsonb_array_elements(?::jsonb) as e
),
rolled as (
  insert into call_rollups as c (hour, server_id, server_name, calls, errors, latency_sum_ms)
  select hour, server_id, server_name, calls, errors, latency_sum_ms
  from jsonb_to_recordset(?::jsonb)
    as x(hour timestamptz, server_id uuid, server_name text, calls bigint, errors bigint, latency_sum_ms double precision)
  order by hour, server_id
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

/** A batch's calls of one hour and one server (the nil id: no server), as `call_rollups` adds them up. */
interface Rollup {
  hour: Date;
  server_id: string;
  /** The server's name in the batch's last record that has one. */
  server_name: string | null;
  calls: number;
  errors: number;
  latency_sum_ms: number;
}

/** Persistence of call records and of the rollups that are kept with them. */
export class CallRecordsStore implements CallRecordSink {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /**
   * Inserts a batch and folds it into the rollups in one statement with three parameters (JSON
   * arrays unpacked by the database: the records, the batch's rollup rows, its histograms), so a
   * batch of hundreds costs one small query to build and parse instead of thousands of bindings,
   * and the rollups never disagree with the records.
   */
  async insertMany(records: readonly CallRecord[]): Promise<void> {
    if (records.length === 0) return;
    const histograms = new Map<number, number[]>();
    const rollups = new Map<string, Rollup>();
    const rows = records.map((r) => {
      const time = r.occurred_at.getTime();
      const hour = Math.floor(time / HOUR_MS) * HOUR_MS;
      let counts = histograms.get(hour);
      if (!counts) histograms.set(hour, (counts = []));
      const bucket = latencyBucket(r.latency_ms);
      for (let i = counts.length; i <= bucket; i++) counts.push(0);
      counts[bucket]! += 1;
      const serverId = r.server_id ?? NO_SERVER_ID;
      const key = `${hour} ${serverId}`;
      let rollup = rollups.get(key);
      if (!rollup) {
        rollup = { hour: new Date(hour), server_id: serverId, server_name: null, calls: 0, errors: 0, latency_sum_ms: 0 };
        rollups.set(key, rollup);
      }
      rollup.calls += 1;
      if (isServerError(r.status)) rollup.errors += 1;
      rollup.latency_sum_ms += r.latency_ms;
      if (r.server_name !== null) rollup.server_name = r.server_name;
      return recordRow(r);
    });
    const hours = [...histograms].map(([hour, counts]) => ({ hour: new Date(hour), counts }));
    // A caller may send U+0000 in a tool name, which jsonb refuses: it is stored as U+FFFD.
    await this.db.raw(INSERT_SQL, [jsonWithoutNul(rows), jsonWithoutNul([...rollups.values()]), JSON.stringify(hours)]);
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
