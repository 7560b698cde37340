import type { Knex } from 'knex';
import type { PageWindow } from '../domain/page.js';
import type { Role } from '../domain/principal.js';
import { pageOf } from './paging.js';

export interface DbInvitationRow {
  id: string;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: string;
  invited_by_name: string;
  expires_at: Date;
  created_at: Date;
  accepted_at: Date | null;
  accepted_user_id: string | null;
  revoked_at: Date | null;
}

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

const COLUMNS = [
  'id',
  'email',
  'role',
  'token_hash',
  'invited_by',
  'expires_at',
  'created_at',
  'accepted_at',
  'accepted_user_id',
  'revoked_at',
];
const SELECT = [...COLUMNS.map((c) => `i.${c}`), 'u.name as invited_by_name'];

/** Persistence of invitations; only the SHA-256 of a token is stored. */
export class InvitationsStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  private base(): Knex.QueryBuilder {
    return this.db('invitations as i').join('users as u', 'u.id', 'i.invited_by').select(SELECT);
  }

  async insert(
    row: Omit<DbInvitationRow, 'created_at' | 'accepted_at' | 'accepted_user_id' | 'revoked_at' | 'invited_by_name'>,
  ): Promise<DbInvitationRow> {
    const [created] = await this.db('invitations').insert(row).returning('id');
    return (await this.findById((created as { id: string }).id))!;
  }

  async findById(id: string, forUpdate = false): Promise<DbInvitationRow | undefined> {
    const q = this.base().where('i.id', id).first();
    return forUpdate ? q.forUpdate('i') : q;
  }

  async findByTokenHash(tokenHash: string, forUpdate = false): Promise<DbInvitationRow | undefined> {
    const q = this.base().where('i.token_hash', tokenHash).first();
    return forUpdate ? q.forUpdate('i') : q;
  }

  /** The pending (not accepted, not revoked, not expired) invitation for an email, if any. */
  async findPendingByEmail(email: string, now: Date): Promise<DbInvitationRow | undefined> {
    return this.base()
      .whereRaw('lower(i.email) = lower(?)', [email])
      .whereNull('i.accepted_at')
      .whereNull('i.revoked_at')
      .where('i.expires_at', '>', now)
      .orderBy('i.created_at', 'desc')
      .first();
  }

  /** A page of invitations, newest first, optionally in one state at `now`. */
  async list(window: PageWindow, status: InvitationStatus | undefined, now: Date): Promise<{ rows: DbInvitationRow[]; total: number }> {
    const filter = (q: Knex.QueryBuilder): Knex.QueryBuilder => {
      if (status === 'accepted') return q.whereNotNull('i.accepted_at');
      if (status === 'revoked') return q.whereNull('i.accepted_at').whereNotNull('i.revoked_at');
      if (status === 'expired') return q.whereNull('i.accepted_at').whereNull('i.revoked_at').where('i.expires_at', '<=', now);
      if (status === 'pending') return q.whereNull('i.accepted_at').whereNull('i.revoked_at').where('i.expires_at', '>', now);
      return q;
    };
    const { rows, total } = await pageOf<DbInvitationRow>(
      () => filter(this.db('invitations as i')),
      () =>
        filter(this.base()).orderBy([
          { column: 'i.created_at', order: 'desc' },
          { column: 'i.id', order: 'desc' },
        ]),
      window,
    );
    return { rows, total };
  }

  async markRevoked(id: string, now: Date): Promise<void> {
    await this.db('invitations').where({ id }).update({ revoked_at: now });
  }

  async markAccepted(id: string, userId: string, now: Date): Promise<void> {
    await this.db('invitations').where({ id }).update({ accepted_at: now, accepted_user_id: userId });
  }
}
