import type { Knex } from 'knex';

export interface DbOAuthProviderRow {
  id: string;
  provider_type: string;
  display_name: string;
  client_id: string;
  client_secret_sealed: string | null;
  is_enabled: boolean;
  display_order: number;
  config: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'provider_type',
  'display_name',
  'client_id',
  'client_secret_sealed',
  'is_enabled',
  'display_order',
  'config',
  'created_at',
  'updated_at',
] as const;

/** Persistence of OAuth login providers. The client secret column holds only sealed values. */
export class OAuthProvidersStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /** All providers (or only enabled ones) by display order, then type. */
  async list(onlyEnabled = false): Promise<DbOAuthProviderRow[]> {
    const q = this.db('oauth_providers')
      .select(COLUMNS)
      .orderBy([{ column: 'display_order' }, { column: 'provider_type' }]);
    if (onlyEnabled) q.where({ is_enabled: true });
    return q;
  }

  async findByType(providerType: string): Promise<DbOAuthProviderRow | undefined> {
    return this.db('oauth_providers').select(COLUMNS).where({ provider_type: providerType }).first();
  }

  /** Inserts a provider; undefined when the provider_type is taken. */
  async insert(row: Omit<DbOAuthProviderRow, 'created_at' | 'updated_at'>): Promise<DbOAuthProviderRow | undefined> {
    const [created] = await this.db('oauth_providers')
      .insert({ ...row, config: JSON.stringify(row.config) })
      .onConflict('provider_type')
      .ignore()
      .returning(COLUMNS);
    return created as DbOAuthProviderRow | undefined;
  }

  async update(
    providerType: string,
    patch: Partial<
      Pick<DbOAuthProviderRow, 'display_name' | 'client_id' | 'client_secret_sealed' | 'is_enabled' | 'display_order' | 'config'>
    >,
    now: Date,
  ): Promise<DbOAuthProviderRow | undefined> {
    const values: Record<string, unknown> = { updated_at: now };
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) values[k] = k === 'config' ? JSON.stringify(v) : v;
    const [row] = await this.db('oauth_providers').where({ provider_type: providerType }).update(values).returning(COLUMNS);
    return row as DbOAuthProviderRow | undefined;
  }

  /** Deletes the provider row, sealed secret included; false when there was none. */
  async delete(providerType: string): Promise<boolean> {
    // `returning` rather than the affected-row count, which knex-pglite does not report as a number.
    const rows = await this.db('oauth_providers').where({ provider_type: providerType }).delete().returning('id');
    return rows.length > 0;
  }
}
