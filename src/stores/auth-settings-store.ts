import type { Knex } from 'knex';

export interface DbAuthSettingsRow {
  allowed_domains: string[];
  admin_emails: string[];
  access_token_expire_minutes: number;
  api_key_max_lifetime_days: number | null;
  updated_at: Date | null;
}

const COLUMNS = ['allowed_domains', 'admin_emails', 'access_token_expire_minutes', 'api_key_max_lifetime_days', 'updated_at'] as const;

/** The values in force while nobody has changed the settings (no row yet). */
export const DEFAULT_AUTH_SETTINGS: DbAuthSettingsRow = Object.freeze({
  allowed_domains: [],
  admin_emails: [],
  access_token_expire_minutes: 1440,
  api_key_max_lifetime_days: null,
  updated_at: null,
});

/** Persistence of the single auth settings row (id 1). */
export class AuthSettingsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async get(): Promise<DbAuthSettingsRow> {
    const row = (await this.db('auth_settings').select(COLUMNS).where({ id: 1 }).first()) as DbAuthSettingsRow | undefined;
    return row ?? { ...DEFAULT_AUTH_SETTINGS };
  }

  /** Writes the supplied fields (undefined = leave alone), creating the row on first change. */
  async update(patch: Partial<Omit<DbAuthSettingsRow, 'updated_at'>>, now: Date): Promise<DbAuthSettingsRow> {
    const values: Record<string, unknown> = { updated_at: now };
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      values[k] = Array.isArray(v) ? JSON.stringify(v) : v;
    }
    const current = await this.get();
    const insert = {
      id: 1,
      allowed_domains: JSON.stringify(current.allowed_domains),
      admin_emails: JSON.stringify(current.admin_emails),
      access_token_expire_minutes: current.access_token_expire_minutes,
      api_key_max_lifetime_days: current.api_key_max_lifetime_days,
      ...values,
    };
    const [row] = await this.db('auth_settings').insert(insert).onConflict('id').merge(values).returning(COLUMNS);
    return row as DbAuthSettingsRow;
  }
}
