import type { Knex } from 'knex';
import type { DbUserRow } from './users-store.js';

export interface DbApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  description: string | null;
  key_prefix: string;
  key_hash: string;
  environment: 'live' | 'test';
  scopes: string[];
  rate_limit_rpm: number | null;
  is_active: boolean;
  expires_at: Date | null;
  last_used_at: Date | null;
  last_used_ip: string | null;
  revoked_at: Date | null;
  rotated_from_id: string | null;
  grace_period_ends_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'user_id',
  'name',
  'description',
  'key_prefix',
  'key_hash',
  'environment',
  'scopes',
  'rate_limit_rpm',
  'is_active',
  'expires_at',
  'last_used_at',
  'last_used_ip',
  'revoked_at',
  'rotated_from_id',
  'grace_period_ends_at',
  'created_at',
  'updated_at',
] as const;

/** A key together with the user who owns it, as authentication needs them. */
export interface ApiKeyWithOwner {
  key: DbApiKeyRow;
  user: Pick<DbUserRow, 'id' | 'email' | 'name' | 'role' | 'is_active'>;
}

/** Persistence of user API keys. Stores only the SHA-256 of a key, never the key. */
export class ApiKeysStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  with(trx: Knex.Transaction): ApiKeysStore {
    return new ApiKeysStore(trx);
  }

  async insert(
    row: Omit<
      DbApiKeyRow,
      'created_at' | 'updated_at' | 'last_used_at' | 'last_used_ip' | 'revoked_at' | 'rotated_from_id' | 'grace_period_ends_at'
    > &
      Partial<DbApiKeyRow>,
  ): Promise<DbApiKeyRow> {
    const [created] = await this.db('api_keys')
      .insert({ ...row, scopes: JSON.stringify(row.scopes) })
      .returning(COLUMNS);
    return created as DbApiKeyRow;
  }

  /** The key whose hash is `keyHash`, with its owner; undefined when there is none. */
  async findByHashWithOwner(keyHash: string): Promise<ApiKeyWithOwner | undefined> {
    const row = await this.db('api_keys as k')
      .join('users as u', 'u.id', 'k.user_id')
      .select([
        ...COLUMNS.map((c) => `k.${c}`),
        'u.id as u_id',
        'u.email as u_email',
        'u.name as u_name',
        'u.role as u_role',
        'u.is_active as u_is_active',
      ])
      .where('k.key_hash', keyHash)
      .first();
    if (!row) return undefined;
    const { u_id, u_email, u_name, u_role, u_is_active, ...key } = row as DbApiKeyRow & {
      u_id: string;
      u_email: string;
      u_name: string;
      u_role: DbUserRow['role'];
      u_is_active: boolean;
    };
    return { key, user: { id: u_id, email: u_email, name: u_name, role: u_role, is_active: u_is_active } };
  }
}
