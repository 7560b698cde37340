import type { Config } from '../../config.js';
import type { Principal } from '../../domain/principal.js';
import { UnauthorizedError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isConnectionError } from '../../lib/database-errors.js';
import type { Logger } from '../../logger.js';
import type { ApiKeysStore, ApiKeyWithOwner, DbApiKeyRow } from '../../stores/api-keys-store.js';
import { hashKey, looksLikeUserKey } from '../../domain/api-key-format.js';
import type { ChangeBus } from '../../redis/change-bus.js';

const INVALID = 'Invalid, expired or revoked API key';

/**
 * How long a cached credential is trusted without a notification: the bound on how late a
 * revocation reaches an instance that missed its change message (Redis down, or no Redis).
 */
export const CREDENTIAL_CACHE_TTL_MS = 5_000;
/**
 * A credential in use is re-read in the background once its entry is this old, so a busy key is
 * checked against the database every few seconds without any request waiting for it.
 */
const REFRESH_AHEAD_MS = 3_000;
/** How long "no such key" is remembered, so a flood of unknown keys does not become a flood of queries. */
const NEGATIVE_TTL_MS = 5_000;
const NEGATIVE_MAX = 10_000;
/** How often buffered last-use data is written. */
const USAGE_FLUSH_MS = 5_000;

interface CacheEntry {
  found: ApiKeyWithOwner;
  principal: Principal;
  loadedAt: number;
}

/** True when a key may authenticate at `nowMs`: active, not expired, not past its grace period. */
export function keyUsable(key: DbApiKeyRow, nowMs: number): boolean {
  return (
    key.is_active &&
    (key.expires_at === null || key.expires_at.getTime() > nowMs) &&
    (key.grace_period_ends_at === null || key.grace_period_ends_at.getTime() > nowMs)
  );
}

/**
 * The hot path of user API keys: `authenticate` resolves a bearer token to its caller.
 *
 * It reads an in-memory cache keyed by the key's SHA-256, so a warm key costs no database round
 * trip. Every change that can make a key unusable (revoke, rotate, deactivation, role change)
 * invalidates the entry at once in this process and, through the change bus (Redis pub/sub when
 * configured), on every other instance; entries also expire after CREDENTIAL_CACHE_TTL_MS as a
 * safety net. `last_used_at`/`last_used_ip` are kept in memory and written in batches (one
 * statement per flush), never once per request. The key lifecycle is `ApiKeysService`.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly negative = new Map<string, number>();
  private readonly loading = new Map<string, Promise<ApiKeyWithOwner | undefined>>();
  /** Bumped on every invalidation: a load that started before it must not fill the cache. */
  private generation = 0;
  private readonly usage = new Map<string, { at: Date; ip: string | null }>();
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly store: ApiKeysStore;
  private readonly config: Pick<Config, 'keyPrefix' | 'defaultRateLimitRpm'>;
  private readonly clock: Clock;
  private readonly bus: ChangeBus | undefined;
  private readonly logger: Logger | undefined;
  private readonly usageFlushMs: number;

  constructor(deps: {
    store: ApiKeysStore;
    config: Pick<Config, 'keyPrefix' | 'defaultRateLimitRpm'>;
    clock: Clock;
    bus?: ChangeBus;
    logger?: Logger;
    /** How often buffered last-use data is written (default 5 s). */
    usageFlushMs?: number;
  }) {
    this.usageFlushMs = deps.usageFlushMs ?? USAGE_FLUSH_MS;
    this.store = deps.store;
    this.config = deps.config;
    this.clock = deps.clock;
    this.bus = deps.bus;
    this.logger = deps.logger;
    this.bus?.subscribe((m) => {
      if (m.kind === 'api_key' && typeof m.keyHash === 'string') this.dropHash(m.keyHash);
      else if (m.kind === 'user' && typeof m.userId === 'string') this.dropUser(m.userId);
    });
  }

  /** Starts the periodic flush of last-use data. */
  start(): void {
    this.flushTimer ??= setInterval(() => void this.flushUsage(), this.usageFlushMs);
    this.flushTimer.unref();
  }

  /** Stops the timer and writes what is buffered. */
  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    await this.flushUsage();
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
    if (!user.is_active || !keyUsable(key, now.getTime())) throw new UnauthorizedError(INVALID, 'invalid_api_key');
    this.usage.set(key.id, { at: now, ip: ip ?? null });
    return entry.principal;
  }

  /** A key was created: forget that its hash was unknown, here and on other instances. */
  keyIssued(keyHash: string): void {
    this.negative.delete(keyHash);
    this.bus?.publish({ kind: 'api_key', keyHash });
  }

  /** Drops a cached key here and on other instances (update, revoke, rotate). */
  invalidateHash(keyHash: string): void {
    this.generation += 1;
    this.dropHash(keyHash);
    this.bus?.publish({ kind: 'api_key', keyHash });
  }

  /** Drops every cached key of a user, here and on other instances (role change, deactivation). */
  invalidateUser(userId: string): void {
    this.generation += 1;
    this.dropUser(userId);
    this.bus?.publish({ kind: 'user', userId });
  }

  /** Last use of a key buffered in memory and not yet written, if any. */
  pendingUsage(keyId: string): { at: Date; ip: string | null } | undefined {
    return this.usage.get(keyId);
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
        this.logger?.warn(
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
    if (hit && nowMs - hit.loadedAt < CREDENTIAL_CACHE_TTL_MS) {
      if (nowMs - hit.loadedAt >= REFRESH_AHEAD_MS && !this.loading.has(digest)) this.refresh(digest, hit);
      return hit;
    }
    const miss = this.negative.get(digest);
    if (miss !== undefined && nowMs - miss < NEGATIVE_TTL_MS) return undefined;
    const generation = this.generation;
    const pending = this.load(digest);
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

  /** The database read of one key, shared by every caller waiting for it. */
  private load(digest: string): Promise<ApiKeyWithOwner | undefined> {
    let pending = this.loading.get(digest);
    if (!pending) {
      pending = this.store.findByHashWithOwner(digest).finally(() => this.loading.delete(digest));
      this.loading.set(digest, pending);
    }
    return pending;
  }

  /**
   * Re-reads a cached key in the background: its entry is replaced (or dropped when the key is
   * gone) unless an invalidation came meanwhile. A failed read keeps the entry until its TTL.
   */
  private refresh(digest: string, hit: CacheEntry): void {
    const generation = this.generation;
    const startedMs = this.clock.now().getTime();
    this.load(digest).then(
      (found) => {
        if (generation !== this.generation || this.cache.get(digest) !== hit) return;
        if (found) this.cache.set(digest, { found, principal: this.principalOf(found), loadedAt: startedMs });
        else this.cache.delete(digest);
      },
      () => undefined,
    );
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

  private dropHash(keyHash: string): void {
    this.generation += 1;
    this.cache.delete(keyHash);
    this.negative.delete(keyHash);
  }

  private dropUser(userId: string): void {
    this.generation += 1;
    for (const [hash, entry] of this.cache) if (entry.found.user.id === userId) this.cache.delete(hash);
  }
}
