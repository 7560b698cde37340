import type { Knex } from 'knex';

export type ActivityOutcome = 'success' | 'error';

export interface DbActivityRow {
  id: string;
  occurred_at: Date;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_name: string | null;
  outcome: ActivityOutcome;
  details: Record<string, unknown>;
}

const COLUMNS = [
  'id',
  'occurred_at',
  'actor_id',
  'actor_name',
  'action',
  'target_type',
  'target_id',
  'target_name',
  'outcome',
  'details',
] as const;

/** Persistence of the admin activity log. */
export class ActivityStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async insert(row: DbActivityRow): Promise<void> {
    await this.db('activity_log').insert({ ...row, details: JSON.stringify(row.details) });
  }

  /** The newest entries (only failed ones with `failedOnly`), newest first (ties by id). */
  async recent(input: { limit: number; failedOnly: boolean }): Promise<DbActivityRow[]> {
    // One JSON value instead of rows: the embedded database converts it far faster.
    const { rows } = (await this.db.raw(
      `select coalesce(json_agg(a order by a.occurred_at desc, a.id desc), '[]') as entries from (
         select ${COLUMNS.join(', ')} from activity_log ${input.failedOnly ? "where outcome = 'error'" : ''}
         order by occurred_at desc, id desc limit :limit) a`,
      { limit: input.limit },
    )) as { rows: { entries: unknown }[] };
    const entries = rows[0]!.entries;
    const parsed = (typeof entries === 'string' ? JSON.parse(entries) : entries) as (Omit<DbActivityRow, 'occurred_at'> & {
      occurred_at: string;
    })[];
    return parsed.map((e) => ({ ...e, occurred_at: new Date(e.occurred_at) }));
  }
}
