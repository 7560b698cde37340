import type { Knex } from 'knex';
import type { Role } from '../services/principal.js';

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

  /** The same store bound to a transaction. */
  with(trx: Knex.Transaction): UsersStore {
    return new UsersStore(trx);
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

  async insert(row: Pick<DbUserRow, 'id' | 'email' | 'name' | 'role'> & Partial<DbUserRow>): Promise<DbUserRow> {
    const [created] = await this.db('users').insert(row).returning(COLUMNS);
    return created as DbUserRow;
  }
}
