import { randomUUID } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { Transactor } from '../../stores/transactor.js';
import type { DbUserRow, UsersStore } from '../../stores/users-store.js';
import { pageResult, pageWindow, type PageOf, type PageQuery } from '../pagination.js';
import type { Principal } from '../../domain/principal.js';
import type { ActivityLog } from '../operations/activity-log.js';
import type { ApiKeysService } from './api-keys-service.js';

type Schemas = components['schemas'];
/** A user as the API shows it. */
export type UserView = Schemas['User'];

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
    private readonly tx: Transactor,
    private readonly store: UsersStore,
    private readonly clock: Clock,
    private readonly onChange: UserChangeListener,
    private readonly activity: ActivityLog,
    private readonly apiKeys: Pick<ApiKeysService, 'createForNewUser'>,
  ) {}

  /**
   * Adds a user who signs in with an API key (no invitation, no OAuth provider needed) and issues
   * their first key, in one transaction: either both exist afterwards or neither does.
   */
  async create(caller: Principal, input: Schemas['UserCreate']): Promise<Schemas['UserCreated']> {
    const role = input.role ?? 'member';
    if (role === 'owner' && caller.role !== 'owner') throw new ForbiddenError('Only owners may add owners', 'forbidden');
    return this.tx.transaction(async (stores) => {
      if (await stores.users.findByEmail(input.email)) throw new ConflictError('A user with this email already exists', 'email_taken');
      const row = await stores.users.insert({ id: randomUUID(), email: input.email, name: input.name ?? '', role });
      await this.activity.record(stores, {
        action: 'user.create',
        target: { type: 'user', id: row.id, name: row.name || row.email },
        details: { role },
      });
      const api_key = await this.apiKeys.createForNewUser(stores, row.id, input.key_name ?? 'Initial key');
      return { user: userView(row), api_key };
    });
  }

  async me(userId: string): Promise<UserView> {
    const row = await this.store.findById(userId);
    if (!row) throw new NotFoundError('No such user');
    return userView(row);
  }

  async list(query: PageQuery & { search?: string | undefined }): Promise<PageOf<UserView>> {
    const window = pageWindow(query);
    const { rows, total } = await this.store.list(window, query.search);
    return pageResult(window, rows, total, userView);
  }

  async update(caller: Principal, userId: string, patch: Schemas['UserUpdate'], action = 'user.update'): Promise<UserView> {
    const updated = await this.tx.transaction(async (stores) => {
      const users = stores.users;
      await users.lockForOwnerChanges();
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
      const saved = await users.update(userId, { role: patch.role, is_active: patch.is_active, name: patch.name }, this.clock.now());
      // A deactivated user's upstream OAuth tokens leave the vault with them (in the same transaction).
      if (deactivates) await stores.upstreamOAuth.deleteTokensOfUser(userId);
      await this.activity.record(stores, {
        action,
        target: { type: 'user', id: target.id, name: target.name || target.email },
        details: {
          fields: Object.keys(patch).sort(),
          ...(changesRole ? { role_from: target.role, role_to: patch.role ?? target.role } : {}),
          ...(patch.is_active !== undefined ? { is_active: patch.is_active } : {}),
        },
      });
      return saved;
    });
    this.onChange(userId);
    return userView(updated!);
  }

  /** Same as `update` with `is_active: false`; idempotent. */
  async deactivate(caller: Principal, userId: string): Promise<void> {
    await this.update(caller, userId, { is_active: false }, 'user.deactivate');
  }
}
