import type { Knex } from 'knex';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { DbUserRow, UsersStore } from '../stores/users-store.js';
import type { Principal, Role } from '../domain/principal.js';

/** A user as the API shows it. */
export interface UserView {
  id: string;
  email: string;
  name: string;
  role: Role;
  is_active: boolean;
  auth_provider: string | null;
  created_at: string;
  updated_at: string;
  last_login_at: string | null;
}

export interface UserPatch {
  role?: Role;
  is_active?: boolean;
  name?: string;
}

/** Called after a change that must invalidate cached credentials of a user. */
export type UserChangeListener = (userId: string) => void;

/** Maps a user row to its API view. */
export function userView(row: DbUserRow): UserView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    is_active: row.is_active,
    auth_provider: row.auth_provider,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_login_at: row.last_login_at?.toISOString() ?? null,
  };
}

/**
 * Users and roles. Rules: only owners grant or revoke the owner role or change an owner; nobody
 * changes their own role or deactivates themselves; the last active owner cannot be demoted or
 * deactivated (checked under a table lock, so two concurrent demotions cannot both pass).
 */
export class UsersService {
  constructor(
    private readonly knex: Knex,
    private readonly store: UsersStore,
    private readonly clock: Clock,
    private readonly onChange: UserChangeListener,
  ) {}

  async me(userId: string): Promise<UserView> {
    const row = await this.store.findById(userId);
    if (!row) throw new NotFoundError('No such user');
    return userView(row);
  }

  async list(page: number, pageSize: number, search?: string): Promise<{ items: UserView[]; total: number }> {
    const { rows, total } = await this.store.list(page, pageSize, search);
    return { items: rows.map(userView), total };
  }

  async update(caller: Principal, userId: string, patch: UserPatch): Promise<UserView> {
    const updated = await this.knex.transaction(async (trx) => {
      await trx.raw('lock table users in share row exclusive mode');
      const users = this.store.with(trx);
      const target = await users.findById(userId);
      if (!target) throw new NotFoundError('No such user');
      const changesRole = patch.role !== undefined && patch.role !== target.role;
      const deactivates = patch.is_active === false && target.is_active;
      const touchesOwner = target.role === 'owner' || patch.role === 'owner';
      if (touchesOwner && caller.role !== 'owner') {
        throw new ForbiddenError('Only owners may grant or revoke the owner role or change an owner', 'forbidden');
      }
      if (target.role === 'owner' && target.is_active && ((changesRole && patch.role !== 'owner') || deactivates)) {
        if ((await users.countActiveOwners()) <= 1) throw new ConflictError('This change would leave no active owner', 'last_owner');
      }
      if (target.id === caller.userId && (changesRole || patch.is_active === false)) {
        throw new ForbiddenError('You cannot change your own role or deactivate yourself', 'forbidden');
      }
      return users.update(userId, { role: patch.role, is_active: patch.is_active, name: patch.name }, this.clock.now());
    });
    this.onChange(userId);
    return userView(updated!);
  }

  /** Same as `update` with `is_active: false`; idempotent. */
  async deactivate(caller: Principal, userId: string): Promise<void> {
    await this.update(caller, userId, { is_active: false });
  }
}
