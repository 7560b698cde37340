import type { Knex } from 'knex';
import { conflictOnUnique } from './unique-violation.js';

export type DbAiProviderType = 'llm' | 'embedding';
export type DbAiProviderName = 'openai' | 'anthropic' | 'openai_compatible' | 'ollama' | 'vllm' | 'lmstudio';

export interface DbAiProviderRow {
  id: string;
  provider_type: DbAiProviderType;
  provider: DbAiProviderName;
  display_name: string;
  model: string;
  endpoint: string | null;
  /** Normalised effective endpoint: with type, provider and model, what makes two configurations duplicates. */
  endpoint_identity: string;
  /** The API key sealed with the master key; null without a key. */
  api_key_sealed: string | null;
  api_key_masked: string | null;
  config: Record<string, unknown>;
  is_active: boolean;
  connection_verified: boolean;
  connection_verified_at: Date | null;
  /** The provider answered that the model (or endpoint) does not exist. */
  model_unavailable: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'provider_type',
  'provider',
  'display_name',
  'model',
  'endpoint',
  'endpoint_identity',
  'api_key_sealed',
  'api_key_masked',
  'config',
  'is_active',
  'connection_verified',
  'connection_verified_at',
  'model_unavailable',
  'created_at',
  'updated_at',
] as const;

export type AiProviderPatch = Partial<
  Pick<
    DbAiProviderRow,
    | 'display_name'
    | 'model'
    | 'endpoint'
    | 'endpoint_identity'
    | 'api_key_sealed'
    | 'api_key_masked'
    | 'config'
    | 'connection_verified'
    | 'connection_verified_at'
    | 'model_unavailable'
  >
>;

/** The duplicate rule of AI providers: one configuration per type, provider, model and endpoint. */
const duplicate = conflictOnUnique({
  ai_providers_identity_key: ['An AI provider with the same provider_type, provider, model and endpoint exists', 'ai_provider_duplicate'],
});

/** Persistence of AI provider configurations. The only Knex user of `ai_providers`. */
export class AiProvidersStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /**
   * Serialises activation changes of one provider type until the transaction ends (call inside
   * `Transactor.transaction`).
   */
  async lockType(type: DbAiProviderType): Promise<void> {
    await this.db.raw('select pg_advisory_xact_lock(hashtext(?))', [`toolgate.ai_providers.${type}`]);
  }

  /** Every configuration: by type, the active one first, then oldest first. */
  async list(): Promise<DbAiProviderRow[]> {
    return this.db('ai_providers')
      .select(COLUMNS)
      .orderBy([{ column: 'provider_type' }, { column: 'is_active', order: 'desc' }, { column: 'created_at' }, { column: 'id' }]);
  }

  async findById(id: string): Promise<DbAiProviderRow | undefined> {
    return this.db('ai_providers').select(COLUMNS).where({ id }).first();
  }

  async findActive(type: DbAiProviderType): Promise<DbAiProviderRow | undefined> {
    return this.db('ai_providers').select(COLUMNS).where({ provider_type: type, is_active: true }).first();
  }

  /** Inserts a configuration; ConflictError (`ai_provider_duplicate`) when its identity is taken. */
  async insert(row: Omit<DbAiProviderRow, 'created_at' | 'updated_at'>, now: Date): Promise<DbAiProviderRow> {
    const [created] = await this.db('ai_providers')
      .insert({ ...row, config: JSON.stringify(row.config), created_at: now, updated_at: now })
      .returning(COLUMNS)
      .catch(duplicate);
    return created as DbAiProviderRow;
  }

  /** Updates the given columns (and `updated_at`); undefined when the row does not exist. */
  async update(id: string, patch: AiProviderPatch, now: Date): Promise<DbAiProviderRow | undefined> {
    const values: Record<string, unknown> = { updated_at: now };
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) values[k] = k === 'config' ? JSON.stringify(v) : v;
    const [row] = await this.db('ai_providers').where({ id }).update(values).returning(COLUMNS).catch(duplicate);
    return row as DbAiProviderRow | undefined;
  }

  /** Makes `id` the only active provider of its type (call under `lockType`). */
  async activate(id: string, type: DbAiProviderType, now: Date): Promise<DbAiProviderRow | undefined> {
    await this.db('ai_providers')
      .where({ provider_type: type, is_active: true })
      .whereNot({ id })
      .update({ is_active: false, updated_at: now });
    const [row] = await this.db('ai_providers').where({ id }).update({ is_active: true, updated_at: now }).returning(COLUMNS);
    return row as DbAiProviderRow | undefined;
  }

  /** Records the outcome of a connection test or a call, unless the row changed meanwhile (`updated_at`). */
  async recordHealth(
    id: string,
    expectedUpdatedAt: Date,
    patch: Pick<AiProviderPatch, 'connection_verified' | 'connection_verified_at' | 'model_unavailable'>,
  ): Promise<DbAiProviderRow | undefined> {
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) values[k] = v;
    const [row] = await this.db('ai_providers').where({ id, updated_at: expectedUpdatedAt }).update(values).returning(COLUMNS);
    return row as DbAiProviderRow | undefined;
  }

  /** Deletes a configuration and its sealed key; the row as it was, or undefined. */
  async delete(id: string): Promise<DbAiProviderRow | undefined> {
    const [row] = await this.db('ai_providers').where({ id }).delete().returning(COLUMNS);
    return row as DbAiProviderRow | undefined;
  }

  /** Deletes every configuration (the general-settings reset); how many there were. */
  async deleteAll(): Promise<number> {
    const rows = await this.db('ai_providers').delete().returning('id');
    return rows.length;
  }
}
