import type { Knex } from 'knex';
import type { PageWindow } from '../domain/page.js';
import type { Role } from '../domain/principal.js';
import { matching, pageOf } from './paging.js';
import { conflictOnUnique } from './unique-violation.js';

const DUPLICATE = conflictOnUnique({ users_email_lower_key: ['A user with this email address already exists', 'email_taken'] });

export interface DbUserRow {
  id: string;
  email: string;
  name: string;
  role: Role;
  is_active: boolean;
  auth_provider: string | null;
  auth_subject: string | null;
  last_login_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  'id',
  'email',
  'name',
  'role',
  'is_active',
  'auth_provider',
  'auth_subject',
  'last_login_at',
  'created_at',
  'updated_at',
] as const;

/** Persistence of users. */
export class UsersStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /**
   * Serialises the changes that count owners or users (bootstrap, role changes): the table is
   * locked in share row exclusive mode until the transaction ends. Only inside a transaction.
   */
  async lockForOwnerChanges(): Promise<void> {
    await this.db.raw('lock table users in share row exclusive mode');
  }

  async count(): Promise<number> {
    const row = await this.db('users').count<{ count: string | number }[]>({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  async findById(id: string): Promise<DbUserRow | undefined> {
    return this.db('users').select(COLUMNS).where({ id }).first();
  }

  async findByEmail(email: string): Promise<DbUserRow | undefined> {
    return this.db('users').select(COLUMNS).whereRaw('lower(email) = lower(?)', [email]).first();
  }

  /** Which of these user ids exist. */
  async existingIds(ids: readonly string[]): Promise<string[]> {
    if (!ids.length) return [];
    const rows: { id: string }[] = await this.db('users')
      .select('id')
      .whereIn('id', [...ids]);
    return rows.map((r) => r.id);
  }

  async findByIdForUpdate(id: string): Promise<DbUserRow | undefined> {
    return this.db('users').select(COLUMNS).where({ id }).forUpdate().first();
  }

  /** The user who signed in with this provider subject. */
  async findByAuthSubject(provider: string, subject: string): Promise<DbUserRow | undefined> {
    return this.db('users').select(COLUMNS).where({ auth_provider: provider, auth_subject: subject }).first();
  }

  /** Users by email, including inactive ones; `search` matches email or name (case-insensitive). */
  async list(window: PageWindow, search?: string): Promise<{ rows: DbUserRow[]; total: number }> {
    return pageOf<DbUserRow>(
      () => this.db('users').modify((q: Knex.QueryBuilder) => matching(q, search, ['email', 'name'])),
      (q) => q.select(COLUMNS).orderByRaw('lower(email) asc, id asc'),
      window,
    );
  }

  /** Number of active owners (the last one is protected). */
  async countActiveOwners(): Promise<number> {
    const row = await this.db('users')
      .where({ role: 'owner', is_active: true })
      .count<{ count: string | number }[]>({ count: '*' })
      .first();
    return Number(row?.count ?? 0);
  }

  /** Applies the supplied fields (undefined = leave alone). */
  async update(
    id: string,
    patch: Partial<Pick<DbUserRow, 'name' | 'role' | 'is_active' | 'auth_provider' | 'auth_subject' | 'last_login_at'>>,
    now: Date,
  ): Promise<DbUserRow | undefined> {
    const values: Record<string, unknown> = { updated_at: now };
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) values[k] = v;
    const [row] = await this.db('users').where({ id }).update(values).returning(COLUMNS);
    return row as DbUserRow | undefined;
  }

  async insert(row: Pick<DbUserRow, 'id' | 'email' | 'name' | 'role'> & Partial<DbUserRow>): Promise<DbUserRow> {
    const [created] = await this.db('users').insert(row).returning(COLUMNS).catch(DUPLICATE);
    return created as DbUserRow;
  }
}
