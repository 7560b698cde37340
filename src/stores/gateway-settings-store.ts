import type { Knex } from 'knex';

export interface DbGatewaySettingsRow {
  user_id: string;
  mode: 'direct' | 'search_execute';
  bundle_ids: string[];
  search_result_limit: number;
  updated_at: Date;
}

const COLUMNS = ['user_id', 'mode', 'bundle_ids', 'search_result_limit', 'updated_at'] as const;

/** Persistence of each user's gateway settings (no row = defaults). */
export class GatewaySettingsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async find(userId: string): Promise<DbGatewaySettingsRow | undefined> {
    return this.db('gateway_settings').select(COLUMNS).where({ user_id: userId }).first();
  }

  /** Creates or changes the row; undefined fields keep their current (or default) value. */
  async upsert(
    userId: string,
    patch: Partial<Pick<DbGatewaySettingsRow, 'mode' | 'bundle_ids' | 'search_result_limit'>>,
    now: Date,
  ): Promise<DbGatewaySettingsRow> {
    const values: Record<string, unknown> = { updated_at: now };
    if (patch.mode !== undefined) values.mode = patch.mode;
    if (patch.bundle_ids !== undefined) values.bundle_ids = JSON.stringify(patch.bundle_ids);
    if (patch.search_result_limit !== undefined) values.search_result_limit = patch.search_result_limit;
    const [row] = await this.db('gateway_settings')
      .insert({ user_id: userId, ...values })
      .onConflict('user_id')
      .merge(values)
      .returning(COLUMNS);
    return row as DbGatewaySettingsRow;
  }
}
