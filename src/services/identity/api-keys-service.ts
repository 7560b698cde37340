import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.js';
import { ConflictError, NotFoundError, RequestValidationError } from '../../errors.js';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../../lib/clock.js';
import type { ApiKeysStore, DbApiKeyRow } from '../../stores/api-keys-store.js';
import type { Stores, Transactor } from '../../stores/transactor.js';
import { keyUsable, type ApiKeyAuthenticator } from './api-key-authenticator.js';
import { mintUserKey } from '../../domain/api-key-format.js';
import type { ActivityEntryInput, ActivityLog } from '../operations/activity-log.js';
import type { AuthSettingsService } from './auth-settings-service.js';
import { pageResult, pageWindow, type PageOf, type PageQuery } from '../pagination.js';

type Schemas = components['schemas'];
export type ApiKeyView = Schemas['ApiKey'];
export type ApiKeyScope = Schemas['ApiKeyScope'];

/** Every scope; a key created without `scopes` gets them all. */
export const ALL_SCOPES: readonly ApiKeyScope[] = ['api:read', 'api:write', 'mcp'];

/** An API key's activity entry: its id, name and public prefix, never the key. */
function entry(action: string, row: DbApiKeyRow, details: ActivityEntryInput['details'] = {}): ActivityEntryInput {
  return {
    action,
    target: { type: 'api_key', id: row.id, name: row.name },
    details: { key_prefix: row.key_prefix, owner_id: row.user_id, ...details },
  };
}

/**
 * User API keys: issue, list, update, revoke, rotate. Every change that can make a key unusable
 * invalidates it in the hot-path authenticator (`ApiKeyAuthenticator`) at once.
 */
export class ApiKeysService {
  private readonly tx: Transactor;
  private readonly store: ApiKeysStore;
  private readonly auth: ApiKeyAuthenticator;
  private readonly authSettings: AuthSettingsService | undefined;
  private readonly keyPrefix: string;
  private readonly clock: Clock;
  private readonly activity: ActivityLog;

  constructor(deps: {
    tx: Transactor;
    store: ApiKeysStore;
    authenticator: ApiKeyAuthenticator;
    authSettings?: AuthSettingsService;
    config: Pick<Config, 'keyPrefix'>;
    clock: Clock;
    /** The admin activity log: each change is recorded in its own transaction. */
    activity: ActivityLog;
  }) {
    this.activity = deps.activity;
    this.tx = deps.tx;
    this.store = deps.store;
    this.auth = deps.authenticator;
    this.authSettings = deps.authSettings;
    this.keyPrefix = deps.config.keyPrefix;
    this.clock = deps.clock;
  }

  /**
   * Creates a key for `userId`; the returned `key` is the only time the secret exists in clear.
   * `store` lets a caller issue inside its own transaction (bootstrap, rotation).
   */
  async issue(
    userId: string,
    input: {
      name: string;
      description?: string | null;
      environment?: 'live' | 'test';
      scopes?: readonly string[];
      rateLimitRpm?: number | null;
      expiresAt?: Date | null;
      rotatedFromId?: string | null;
    },
    store: ApiKeysStore = this.store,
  ): Promise<{ row: DbApiKeyRow; key: string }> {
    const environment = input.environment ?? 'live';
    const minted = mintUserKey(this.keyPrefix, environment);
    const row = await store.insert({
      id: randomUUID(),
      user_id: userId,
      name: input.name,
      description: input.description ?? null,
      key_prefix: minted.keyPrefix,
      key_hash: minted.keyHash,
      environment,
      scopes: [...(input.scopes ?? ALL_SCOPES)],
      rate_limit_rpm: input.rateLimitRpm ?? null,
      is_active: true,
      expires_at: input.expiresAt ?? null,
      rotated_from_id: input.rotatedFromId ?? null,
    });
    this.auth.keyIssued(minted.keyHash);
    return { row, key: minted.key };
  }

  /** Creates a key for the caller, enforcing the auth setting `api_key_max_lifetime_days`. */
  async create(userId: string, input: Schemas['ApiKeyCreate']): Promise<Schemas['ApiKeyWithSecret']> {
    const expiresAt = await this.checkedExpiry(input.expires_at);
    const { row, key } = await this.tx.transaction(async (stores) => {
      const issued = await this.issue(
        userId,
        {
          name: input.name,
          description: input.description ?? null,
          environment: input.environment ?? 'live',
          ...(input.scopes ? { scopes: input.scopes } : {}),
          rateLimitRpm: input.rate_limit_rpm ?? null,
          expiresAt,
        },
        stores.apiKeys,
      );
      await this.activity.record(
        stores,
        entry('api_key.create', issued.row, { scopes: issued.row.scopes, environment: issued.row.environment }),
      );
      return issued;
    });
    return { ...this.view(row), key };
  }

  /** The first key of a user an admin adds (UsersService.create), in that transaction. */
  async createForNewUser(stores: Stores, userId: string, name: string): Promise<Schemas['ApiKeyWithSecret']> {
    const { row, key } = await this.issue(userId, { name, environment: 'live', rateLimitRpm: null, expiresAt: null }, stores.apiKeys);
    await this.activity.record(stores, entry('api_key.create', row, { scopes: row.scopes, environment: row.environment }));
    return { ...this.view(row), key };
  }

  async list(userId: string, query: PageQuery): Promise<PageOf<ApiKeyView>> {
    const window = pageWindow(query);
    const { rows, total } = await this.store.listForUser(userId, window);
    const rotated = await this.store.rotatedAmong(rows.map((r) => r.id));
    return pageResult(window, rows, total, (r) => this.view(r, rotated.has(r.id)));
  }

  async get(userId: string, keyId: string): Promise<ApiKeyView> {
    const row = await this.store.findForUser(userId, keyId);
    if (!row) throw new NotFoundError('No such API key', 'not_found');
    return this.view(row, (await this.store.rotatedAmong([row.id])).has(row.id));
  }

  /** When a key stops working on its own: the earlier of `expires_at` and the end of a rotation grace period; null for never. */
  async usableUntil(userId: string, keyId: string): Promise<Date | null> {
    const row = await this.store.findForUser(userId, keyId);
    if (!row) throw new NotFoundError('No such API key', 'not_found');
    const ends = [row.expires_at, row.grace_period_ends_at].filter((d): d is Date => d !== null);
    return ends.length ? new Date(Math.min(...ends.map((d) => d.getTime()))) : null;
  }

  async update(userId: string, keyId: string, patch: Schemas['ApiKeyUpdate']): Promise<ApiKeyView> {
    const { existing, row } = await this.tx.transaction(async (stores) => {
      const found = await stores.apiKeys.findForUserForUpdate(userId, keyId);
      if (!found) throw new NotFoundError('No such API key', 'not_found');
      const saved = await stores.apiKeys.update(
        keyId,
        { name: patch.name, description: patch.description, scopes: patch.scopes, rate_limit_rpm: patch.rate_limit_rpm },
        this.clock.now(),
      );
      await this.activity.record(stores, entry('api_key.update', saved ?? found, { fields: Object.keys(patch).sort() }));
      return { existing: found, row: saved };
    });
    this.auth.invalidateHash(existing.key_hash);
    return this.view(row!, (await this.store.rotatedAmong([row!.id])).has(row!.id));
  }

  /** Revokes a key at once; idempotent. */
  async revoke(userId: string, keyId: string): Promise<void> {
    const existing = await this.tx.transaction(async (stores) => {
      const found = await stores.apiKeys.findForUserForUpdate(userId, keyId);
      if (!found) throw new NotFoundError('No such API key', 'not_found');
      if (found.is_active) {
        const now = this.clock.now();
        await stores.apiKeys.update(keyId, { is_active: false, revoked_at: now }, now);
      }
      await this.activity.record(stores, entry('api_key.revoke', found, { was_active: found.is_active }));
      return found;
    });
    this.auth.invalidateHash(existing.key_hash);
  }

  /**
   * Replaces a key: the new key (same environment, description, scopes, rate limit; expiry kept
   * but capped by the auth settings) is returned once. With `grace_period_seconds` > 0 the old key
   * works until the returned `grace_period_ends_at`; otherwise it is revoked at once. Both writes
   * happen in one transaction.
   */
  async rotate(
    userId: string,
    keyId: string,
    input: Partial<Schemas['ApiKeyRotateRequest']> = {},
  ): Promise<Schemas['ApiKeyRotationResult']> {
    const grace = input.grace_period_seconds ?? 0;
    const cap = await this.maxExpiry();
    const result = await this.tx.transaction(async (stores) => {
      const store = stores.apiKeys;
      const old = await store.findForUserForUpdate(userId, keyId);
      if (!old) throw new NotFoundError('No such API key', 'not_found');
      const now = this.clock.now();
      if (!keyUsable(old, now.getTime())) throw new ConflictError('Only an active key can be rotated', 'key_not_active');
      if (old.grace_period_ends_at !== null)
        throw new ConflictError('This key was already rotated and is in its grace period', 'already_rotated');
      let expiresAt = old.expires_at;
      if (cap && (!expiresAt || expiresAt > cap)) expiresAt = cap;
      const issued = await this.issue(
        userId,
        {
          name: input.name ?? old.name,
          description: old.description,
          environment: old.environment,
          scopes: old.scopes,
          rateLimitRpm: old.rate_limit_rpm,
          expiresAt,
          rotatedFromId: old.id,
        },
        store,
      );
      let graceEnds: Date | null = null;
      if (grace > 0) {
        graceEnds = new Date(now.getTime() + grace * 1000);
        await store.update(old.id, { grace_period_ends_at: graceEnds }, now);
      } else {
        await store.update(old.id, { is_active: false, revoked_at: now }, now);
      }
      await this.activity.record(
        stores,
        entry('api_key.rotate', old, { new_key_id: issued.row.id, new_key_prefix: issued.row.key_prefix, grace_period_seconds: grace }),
      );
      return { old, issued, graceEnds };
    });
    this.auth.invalidateHash(result.old.key_hash);
    return {
      new_key: { ...this.view(result.issued.row), key: result.issued.key },
      old_key_revoked: result.graceEnds === null,
      grace_period_ends_at: result.graceEnds?.toISOString() ?? null,
    };
  }

  private async maxExpiry(): Promise<Date | null> {
    const days = (await this.authSettings?.get())?.api_key_max_lifetime_days ?? null;
    return days === null ? null : new Date(this.clock.now().getTime() + days * 86_400_000);
  }

  private async checkedExpiry(expiresAt: string | null | undefined): Promise<Date | null> {
    const cap = await this.maxExpiry();
    if (expiresAt === undefined || expiresAt === null) return cap;
    const at = new Date(expiresAt);
    const fail = (msg: string, ctx: Record<string, unknown>): never => {
      throw new RequestValidationError([{ loc: ['body', 'expires_at'], msg, type: 'value_error', input: expiresAt, ctx }]);
    };
    if (at.getTime() <= this.clock.now().getTime()) fail('expires_at must be in the future', {});
    if (cap && at > cap) fail('expires_at is beyond the longest allowed API key lifetime', { max: cap.toISOString() });
    return at;
  }

  /**
   * The API view of a key row; buffered last use not yet flushed is shown too. `replaced`: a newer
   * key was rotated from this one (a rotation in its grace period shows as rotated too).
   */
  private view(row: DbApiKeyRow, replaced = false): ApiKeyView {
    const pending = this.auth.pendingUsage(row.id);
    const lastUsedAt = pending && (!row.last_used_at || pending.at > row.last_used_at) ? pending.at : row.last_used_at;
    const lastUsedIp = pending && lastUsedAt === pending.at ? pending.ip : row.last_used_ip;
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      key_prefix: row.key_prefix,
      environment: row.environment,
      scopes: row.scopes as ApiKeyScope[],
      rate_limit_rpm: row.rate_limit_rpm,
      is_active: keyUsable(row, this.clock.now().getTime()),
      state: keyState(row, replaced, this.clock.now().getTime()),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      expires_at: row.expires_at?.toISOString() ?? null,
      last_used_at: lastUsedAt?.toISOString() ?? null,
      last_used_ip: lastUsedIp,
    };
  }
}

/** What became of a key (openapi.yaml `ApiKeyState`): a rotation wins over the revocation or expiry it caused. */
export function keyState(row: DbApiKeyRow, replaced: boolean, nowMs: number): Schemas['ApiKeyState'] {
  if (replaced || row.grace_period_ends_at !== null) return 'rotated';
  if (row.revoked_at !== null || !row.is_active) return 'revoked';
  if (row.expires_at !== null && row.expires_at.getTime() <= nowMs) return 'expired';
  return 'active';
}
