import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import { ConflictError, NotFoundError, RequestValidationError, UnauthorizedError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import type { ApiKeysStore, ApiKeyWithOwner, DbApiKeyRow } from '../stores/api-keys-store.js';
import { isConnectionError } from '../stores/database.js';
import { hashKey, looksLikeUserKey, mintUserKey } from './api-key-format.js';
import type { AuthSettingsService } from './auth-settings-service.js';
import type { ChangeBus } from './change-bus.js';
import type { Principal } from './principal.js';

const INVALID = 'Invalid, expired or revoked API key';

/** Every scope; a key created without `scopes` gets them all. */
export const ALL_SCOPES = ['api:read', 'api:write', 'mcp'] as const;
export type ApiKeyScope = (typeof ALL_SCOPES)[number];

/** How long a cached credential is trusted without a notification (safety net for lost messages). */
export const CREDENTIAL_CACHE_TTL_MS = 60_000;
/** How long "no such key" is remembered, so a flood of unknown keys does not become a flood of queries. */
const NEGATIVE_TTL_MS = 5_000;
const NEGATIVE_MAX = 10_000;
/** How often buffered last-use data is written. */
const USAGE_FLUSH_MS = 5_000;

/** A key as the API shows it (never its hash). */
export interface ApiKeyView {
  id: string;
  name: string;
  description: string | null;
  key_prefix: string;
  environment: 'live' | 'test';
  scopes: ApiKeyScope[];
  rate_limit_rpm: number | null;
  is_active: boolean;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
}

export interface ApiKeyCreateInput {
  name: string;
  description?: string | null;
  environment?: 'live' | 'test';
  scopes?: string[];
  rate_limit_rpm?: number | null;
  expires_at?: string | null;
}

export interface ApiKeyUpdateInput {
  name?: string;
  description?: string | null;
  scopes?: string[];
  rate_limit_rpm?: number | null;
}

interface CacheEntry {
  found: ApiKeyWithOwner;
  principal: Principal;
  loadedAt: number;
}

/**
 * User API keys: issue, list, update, revoke, rotate, and the hot-path `authenticate`.
 *
 * Authentication reads an in-memory cache keyed by the key's SHA-256, so a warm key costs no
 * database round trip. Every change that can make a key unusable (revoke, rotate, deactivation,
 * role change) invalidates the entry at once in this process and, through the change bus (Redis
 * pub/sub when configured), on every other instance; entries also expire after
 * CREDENTIAL_CACHE_TTL_MS as a safety net. `last_used_at`/`last_used_ip` are kept in memory and
 * written in batches (one statement per flush), never once per request.
 */
export class ApiKeysService {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly negative = new Map<string, number>();
  private readonly loading = new Map<string, Promise<ApiKeyWithOwner | undefined>>();
  /** Bumped on every invalidation: a load that started before it must not fill the cache. */
  private generation = 0;
  private readonly usage = new Map<string, { at: Date; ip: string | null }>();
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly store: ApiKeysStore,
    private readonly config: Pick<Config, 'keyPrefix' | 'defaultRateLimitRpm'>,
    private readonly clock: Clock,
    private readonly deps: {
      knex?: Knex;
      bus?: ChangeBus;
      authSettings?: AuthSettingsService;
      logger?: Logger;
    } = {},
  ) {
    deps.bus?.subscribe((m) => {
      if (m.kind === 'api_key' && typeof m.keyHash === 'string') this.dropHash(m.keyHash);
      else if (m.kind === 'user' && typeof m.userId === 'string') this.dropUser(m.userId);
    });
  }

  /** Starts the periodic flush of last-use data. */
  start(): void {
    this.flushTimer ??= setInterval(() => void this.flushUsage(), USAGE_FLUSH_MS);
    this.flushTimer.unref();
  }

  /** Stops the timer and writes what is buffered. */
  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushUsage();
  }

  /** Creates a key for `userId`; the returned `key` is the only time the secret exists in clear. */
  async issue(
    userId: string,
    input: {
      name: string;
      description?: string | null;
      environment?: 'live' | 'test';
      scopes?: string[];
      rateLimitRpm?: number | null;
      expiresAt?: Date | null;
      rotatedFromId?: string | null;
    },
    store: ApiKeysStore = this.store,
  ): Promise<{ row: DbApiKeyRow; key: string }> {
    const environment = input.environment ?? 'live';
    const minted = mintUserKey(this.config.keyPrefix, environment);
    const row = await store.insert({
      id: randomUUID(),
      user_id: userId,
      name: input.name,
      description: input.description ?? null,
      key_prefix: minted.keyPrefix,
      key_hash: minted.keyHash,
      environment,
      scopes: input.scopes ?? [...ALL_SCOPES],
      rate_limit_rpm: input.rateLimitRpm ?? null,
      is_active: true,
      expires_at: input.expiresAt ?? null,
      rotated_from_id: input.rotatedFromId ?? null,
    });
    // A key that was looked up before it existed may sit in the negative cache.
    this.negative.delete(minted.keyHash);
    this.deps.bus?.publish({ kind: 'api_key', keyHash: minted.keyHash });
    return { row, key: minted.key };
  }

  /** Creates a key for the caller, enforcing the auth setting `api_key_max_lifetime_days`. */
  async create(userId: string, input: ApiKeyCreateInput): Promise<ApiKeyView & { key: string }> {
    const expiresAt = await this.checkedExpiry(input.expires_at);
    const { row, key } = await this.issue(userId, {
      name: input.name,
      description: input.description ?? null,
      environment: input.environment ?? 'live',
      ...(input.scopes ? { scopes: input.scopes } : {}),
      rateLimitRpm: input.rate_limit_rpm ?? null,
      expiresAt,
    });
    return { ...this.view(row), key };
  }

  async list(userId: string, page: number, pageSize: number): Promise<{ items: ApiKeyView[]; total: number }> {
    const { rows, total } = await this.store.listForUser(userId, page, pageSize);
    return { items: rows.map((r) => this.view(r)), total };
  }

  async get(userId: string, keyId: string): Promise<ApiKeyView> {
    const row = await this.store.findForUser(userId, keyId);
    if (!row) throw new NotFoundError('No such API key', 'not_found');
    return this.view(row);
  }

  async update(userId: string, keyId: string, patch: ApiKeyUpdateInput): Promise<ApiKeyView> {
    const existing = await this.store.findForUser(userId, keyId);
    if (!existing) throw new NotFoundError('No such API key', 'not_found');
    const row = await this.store.update(
      keyId,
      { name: patch.name, description: patch.description, scopes: patch.scopes, rate_limit_rpm: patch.rate_limit_rpm },
      this.clock.now(),
    );
    this.invalidateHash(existing.key_hash);
    return this.view(row!);
  }

  /** Revokes a key at once; idempotent. */
  async revoke(userId: string, keyId: string): Promise<void> {
    const existing = await this.store.findForUser(userId, keyId);
    if (!existing) throw new NotFoundError('No such API key', 'not_found');
    if (existing.is_active) {
      const now = this.clock.now();
      await this.store.update(keyId, { is_active: false, revoked_at: now }, now);
    }
    this.invalidateHash(existing.key_hash);
  }

  /**
   * Replaces a key: the new key (same environment, description, scopes, rate limit; expiry kept
   * but capped by the auth settings) is returned once. With `gracePeriodSeconds` > 0 the old key
   * works until the returned `gracePeriodEndsAt`; otherwise it is revoked at once. Both writes
   * happen in one transaction.
   */
  async rotate(
    userId: string,
    keyId: string,
    options: { gracePeriodSeconds?: number; name?: string },
  ): Promise<{ newKey: ApiKeyView & { key: string }; oldKeyRevoked: boolean; gracePeriodEndsAt: string | null }> {
    const knex = this.deps.knex;
    if (!knex) throw new Error('rotation needs a database handle');
    const grace = options.gracePeriodSeconds ?? 0;
    const cap = await this.maxExpiry();
    const result = await knex.transaction(async (trx) => {
      const store = this.store.with(trx);
      const old = await store.findForUserForUpdate(userId, keyId);
      if (!old) throw new NotFoundError('No such API key', 'not_found');
      const now = this.clock.now();
      if (!this.usable(old, now.getTime())) throw new ConflictError('Only an active key can be rotated', 'key_not_active');
      if (old.grace_period_ends_at !== null)
        throw new ConflictError('This key was already rotated and is in its grace period', 'already_rotated');
      let expiresAt = old.expires_at;
      if (cap && (!expiresAt || expiresAt > cap)) expiresAt = cap;
      const issued = await this.issue(
        userId,
        {
          name: options.name ?? old.name,
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
      return { old, issued, graceEnds };
    });
    this.invalidateHash(result.old.key_hash);
    return {
      newKey: { ...this.view(result.issued.row), key: result.issued.key },
      oldKeyRevoked: result.graceEnds === null,
      gracePeriodEndsAt: result.graceEnds?.toISOString() ?? null,
    };
  }

  /**
   * Resolves a bearer token to its caller. Every failure (malformed, unknown, revoked, expired,
   * past its grace period, owner deactivated) is the same 401, so a caller learns nothing.
   * Records the key's last use in memory.
   */
  async authenticate(token: string, ip?: string): Promise<Principal> {
    if (!looksLikeUserKey(token, this.config.keyPrefix)) throw new UnauthorizedError(INVALID, 'invalid_api_key');
    const digest = hashKey(token);
    const entry = await this.lookup(digest);
    if (!entry) throw new UnauthorizedError(INVALID, 'invalid_api_key');
    const { key, user } = entry.found;
    const now = this.clock.now();
    if (!user.is_active || !this.usable(key, now.getTime())) throw new UnauthorizedError(INVALID, 'invalid_api_key');
    this.usage.set(key.id, { at: now, ip: ip ?? null });
    return entry.principal;
  }

  /** Drops every cached key of a user, here and on other instances (role change, deactivation). */
  invalidateUser(userId: string): void {
    this.generation += 1;
    this.dropUser(userId);
    this.deps.bus?.publish({ kind: 'user', userId });
  }

  /** Number of cached keys (tests and metrics). */
  get cacheSize(): number {
    return this.cache.size;
  }

  /** Writes buffered last-use data in one statement. Safe to call concurrently. */
  async flushUsage(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.usage.size === 0) return;
    const batch = [...this.usage.entries()].map(([id, u]) => ({ id, at: u.at, ip: u.ip }));
    this.usage.clear();
    this.flushing = this.store
      .recordUsage(batch)
      .catch((err: unknown) => {
        // Keep what failed unless newer data arrived meanwhile; it goes out with the next flush.
        for (const e of batch) if (!this.usage.has(e.id)) this.usage.set(e.id, { at: e.at, ip: e.ip });
        this.deps.logger?.warn(
          { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown', keys: batch.length },
          'api key usage flush failed',
        );
      })
      .finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /**
   * The cache entry for a key hash, loading it on a miss or after the TTL. When the database cannot
   * be reached and a (stale) entry exists, the stale entry keeps serving: revocations still arrive
   * through the change bus, and a database outage must not lock out every caller.
   */
  private async lookup(digest: string): Promise<CacheEntry | undefined> {
    const nowMs = this.clock.now().getTime();
    const hit = this.cache.get(digest);
    if (hit && nowMs - hit.loadedAt < CREDENTIAL_CACHE_TTL_MS) return hit;
    const miss = this.negative.get(digest);
    if (miss !== undefined && nowMs - miss < NEGATIVE_TTL_MS) return undefined;
    const generation = this.generation;
    let pending = this.loading.get(digest);
    if (!pending) {
      pending = this.store.findByHashWithOwner(digest).finally(() => this.loading.delete(digest));
      this.loading.set(digest, pending);
    }
    let found: ApiKeyWithOwner | undefined;
    try {
      found = await pending;
    } catch (err) {
      if (hit && isConnectionError(err)) return hit;
      throw err;
    }
    if (!found) {
      if (generation === this.generation) {
        if (this.negative.size >= NEGATIVE_MAX) this.negative.clear();
        this.negative.set(digest, nowMs);
      }
      return undefined;
    }
    const entry: CacheEntry = { found, principal: this.principalOf(found), loadedAt: nowMs };
    if (generation === this.generation) this.cache.set(digest, entry);
    return entry;
  }

  private principalOf({ key, user }: ApiKeyWithOwner): Principal {
    const config = this.config;
    return Object.freeze({
      userId: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      via: 'api_key' as const,
      apiKeyId: key.id,
      scopes: Object.freeze([...key.scopes]),
      // Read on every request, so a changed default applies to cached keys at once.
      get rateLimitRpm() {
        return key.rate_limit_rpm ?? config.defaultRateLimitRpm;
      },
    });
  }

  private invalidateHash(keyHash: string): void {
    this.generation += 1;
    this.dropHash(keyHash);
    this.deps.bus?.publish({ kind: 'api_key', keyHash });
  }

  private dropHash(keyHash: string): void {
    this.generation += 1;
    this.cache.delete(keyHash);
    this.negative.delete(keyHash);
  }

  private dropUser(userId: string): void {
    this.generation += 1;
    for (const [hash, entry] of this.cache) if (entry.found.user.id === userId) this.cache.delete(hash);
  }

  private usable(key: DbApiKeyRow, nowMs: number): boolean {
    return (
      key.is_active &&
      (key.expires_at === null || key.expires_at.getTime() > nowMs) &&
      (key.grace_period_ends_at === null || key.grace_period_ends_at.getTime() > nowMs)
    );
  }

  private async maxExpiry(): Promise<Date | null> {
    const days = (await this.deps.authSettings?.get())?.api_key_max_lifetime_days ?? null;
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

  /** The API view of a key row; buffered last use not yet flushed is shown too. */
  view(row: DbApiKeyRow): ApiKeyView {
    const pending = this.usage.get(row.id);
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
      is_active: this.usable(row, this.clock.now().getTime()),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      expires_at: row.expires_at?.toISOString() ?? null,
      last_used_at: lastUsedAt?.toISOString() ?? null,
      last_used_ip: lastUsedIp,
    };
  }
}
