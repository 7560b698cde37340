import type { Knex } from 'knex';
import type { DbUserRow } from './users-store.js';

export interface DbSessionRow {
  id: string;
  user_id: string;
  auth_provider: string | null;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = ['id', 'user_id', 'auth_provider', 'created_at', 'expires_at', 'revoked_at'] as const;

export interface SessionWithUser {
  session: DbSessionRow;
  user: Pick<DbUserRow, 'id' | 'email' | 'name' | 'role' | 'is_active'>;
}

/** Persistence of browser sessions (the token itself is signed, never stored). */
export class SessionsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async insert(row: Pick<DbSessionRow, 'id' | 'user_id' | 'auth_provider' | 'expires_at'>): Promise<DbSessionRow> {
    const [created] = await this.db('sessions').insert(row).returning(COLUMNS);
    return created as DbSessionRow;
  }

  async findWithUser(id: string): Promise<SessionWithUser | undefined> {
    const row = await this.db('sessions as s')
      .join('users as u', 'u.id', 's.user_id')
      .select([...COLUMNS.map((c) => `s.${c}`), 'u.email as u_email', 'u.name as u_name', 'u.role as u_role', 'u.is_active as u_is_active'])
      .where('s.id', id)
      .first();
    if (!row) return undefined;
    const { u_email, u_name, u_role, u_is_active, ...session } = row as DbSessionRow & {
      u_email: string;
      u_name: string;
      u_role: DbUserRow['role'];
      u_is_active: boolean;
    };
    return { session, user: { id: session.user_id, email: u_email, name: u_name, role: u_role, is_active: u_is_active } };
  }

  async revoke(id: string, now: Date): Promise<void> {
    await this.db('sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: now });
  }

  /** Deletes sessions that expired before `before` (housekeeping). */
  async deleteExpired(before: Date): Promise<number> {
    const rows = await this.db('sessions').where('expires_at', '<', before).delete().returning('id');
    return rows.length;
  }
}
