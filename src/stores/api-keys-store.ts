import type { Knex } from 'knex';
import type { PageWindow } from '../domain/page.js';
import { pageOf } from './paging.js';
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

  /** One key of one user; undefined when the key does not exist or belongs to someone else. */
  async findForUser(userId: string, id: string): Promise<DbApiKeyRow | undefined> {
    return this.db('api_keys').select(COLUMNS).where({ id, user_id: userId }).first();
  }

  /** Locks a key row for the rest of the transaction (rotation, revocation). */
  async findForUserForUpdate(userId: string, id: string): Promise<DbApiKeyRow | undefined> {
    return this.db('api_keys').select(COLUMNS).where({ id, user_id: userId }).forUpdate().first();
  }

  /** A page of a user's keys, newest first. */
  async listForUser(userId: string, window: PageWindow): Promise<{ rows: DbApiKeyRow[]; total: number }> {
    return pageOf<DbApiKeyRow>(
      () => this.db('api_keys').where({ user_id: userId }),
      (q) =>
        q.select(COLUMNS).orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]),
      window,
    );
  }

  /** Which of `ids` were replaced by a rotation (a newer key names them as `rotated_from_id`). */
  async rotatedAmong(ids: readonly string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = (await this.db('api_keys')
      .select('rotated_from_id')
      .whereIn('rotated_from_id', [...ids])) as { rotated_from_id: string }[];
    return new Set(rows.map((r) => r.rotated_from_id));
  }

  /** Hashes of every key of a user (cache invalidation). */
  async hashesOfUser(userId: string): Promise<string[]> {
    const rows = await this.db('api_keys').select('key_hash').where({ user_id: userId });
    return rows.map((r: { key_hash: string }) => r.key_hash);
  }

  /** Applies the supplied fields (undefined = leave alone) and returns the new row. */
  async update(
    id: string,
    patch: Partial<
      Pick<DbApiKeyRow, 'name' | 'description' | 'scopes' | 'rate_limit_rpm' | 'is_active' | 'revoked_at' | 'grace_period_ends_at'>
    >,
    now: Date,
  ): Promise<DbApiKeyRow | undefined> {
    const values: Record<string, unknown> = { updated_at: now };
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) values[k] = k === 'scopes' ? JSON.stringify(v) : v;
    const [row] = await this.db('api_keys').where({ id }).update(values).returning(COLUMNS);
    return row as DbApiKeyRow | undefined;
  }

  /**
   * Writes the last use of many keys in one statement (the in-memory usage buffer's flush). Never
   * moves `last_used_at` backwards.
   */
  async recordUsage(entries: readonly { id: string; at: Date; ip: string | null }[]): Promise<void> {
    if (entries.length === 0) return;
    const values = entries.map(() => '(?::uuid, ?::timestamptz, ?::text)').join(', ');
    const bindings = entries.flatMap((e) => [e.id, e.at.toISOString(), e.ip]);
    await this.db.raw(
      `update api_keys as k set last_used_at = v.at, last_used_ip = v.ip
         from (values ${values}) as v(id, at, ip)
        where k.id = v.id and (k.last_used_at is null or k.last_used_at < v.at)`,
      bindings,
    );
  }
}
