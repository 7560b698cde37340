import type { Knex } from 'knex';

/** The stored overrides of the general settings; null = the default. */
export interface DbGeneralSettingsRow {
  log_retention_days: number | null;
  activity_log_retention_days: number | null;
  default_rate_limit_rpm: number | null;
  mcp_session_idle_timeout_minutes: number | null;
  upstream_call_timeout_ms: number | null;
  health_check_interval_seconds: number | null;
  allowed_origins: string[] | null;
  outbound_allowlist: string[] | null;
  registry_url: string | null;
  registry_token_sealed: string | null;
  oauth_client_registration: string | null;
  updated_at: Date;
}

const COLUMNS = [
  'log_retention_days',
  'activity_log_retention_days',
  'default_rate_limit_rpm',
  'mcp_session_idle_timeout_minutes',
  'upstream_call_timeout_ms',
  'health_check_interval_seconds',
  'allowed_origins',
  'outbound_allowlist',
  'registry_url',
  'registry_token_sealed',
  'oauth_client_registration',
  'updated_at',
] as const;

/** Persistence of the single general settings row (id 1). */
export class GeneralSettingsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** The stored row, if anyone ever changed a setting (locked for the transaction with `forUpdate`). */
  async get({ forUpdate = false }: { forUpdate?: boolean } = {}): Promise<DbGeneralSettingsRow | undefined> {
    const q = this.db('general_settings').select(COLUMNS).where({ id: 1 });
    if (forUpdate) q.forUpdate();
    return (await q.first()) as DbGeneralSettingsRow | undefined;
  }

  /** Writes the whole row (creating it on the first change). */
  async put(row: DbGeneralSettingsRow): Promise<void> {
    const values = {
      ...row,
      allowed_origins: row.allowed_origins === null ? null : JSON.stringify(row.allowed_origins),
      outbound_allowlist: row.outbound_allowlist === null ? null : JSON.stringify(row.outbound_allowlist),
    };
    await this.db('general_settings')
      .insert({ id: 1, ...values })
      .onConflict('id')
      .merge(values);
  }

  /** Deletes the row: every setting back to its default. */
  async clear(): Promise<void> {
    await this.db('general_settings').where({ id: 1 }).delete();
  }
}
