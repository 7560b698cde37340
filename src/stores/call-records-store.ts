import type { Knex } from 'knex';
import type { CallRecord, CallRecordSink } from '../domain/call-records.js';

export type DbCallRecordRow = CallRecord & { id: string };

const COLUMNS = [
  'id',
  'occurred_at',
  'endpoint',
  'bundle_id',
  'server_id',
  'tool_id',
  'tool_name',
  'user_id',
  'api_key_id',
  'status',
  'latency_ms',
  'error',
] as const;

const INSERT_COLUMNS = COLUMNS.filter((c) => c !== 'id');
const INSERT_TYPES =
  'occurred_at timestamptz, endpoint text, bundle_id uuid, server_id uuid, tool_id uuid, tool_name text, user_id uuid, api_key_id uuid, status text, latency_ms double precision, error text';

/** Persistence of call records: batch inserts, simple reads. */
export class CallRecordsStore implements CallRecordSink {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /**
   * Inserts a batch in one statement with one parameter (a JSON array unpacked by the database),
   * so a batch of hundreds costs one small query to build and parse instead of thousands of bindings.
   */
  async insertMany(records: readonly CallRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db.raw(
      `insert into call_records (${INSERT_COLUMNS.join(', ')})
       select ${INSERT_COLUMNS.join(', ')} from jsonb_to_recordset(?::jsonb) as r(${INSERT_TYPES})`,
      [JSON.stringify(records)],
    );
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
