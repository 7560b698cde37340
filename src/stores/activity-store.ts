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

  with(trx: Knex.Transaction): ActivityStore {
    return new ActivityStore(trx);
  }

  async insert(row: DbActivityRow): Promise<void> {
    await this.db('activity_log').insert({ ...row, details: JSON.stringify(row.details) });
  }

  /** The newest entries (only failed ones with `failedOnly`), newest first. */
  async recent(input: { limit: number; failedOnly: boolean }): Promise<DbActivityRow[]> {
    const q = this.db('activity_log')
      .select(COLUMNS)
      .orderBy([
        { column: 'occurred_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(input.limit);
    if (input.failedOnly) q.where('outcome', 'error');
    return (await q) as DbActivityRow[];
  }
}
