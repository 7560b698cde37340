import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import { UnauthorizedError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { ApiKeysStore, DbApiKeyRow } from '../stores/api-keys-store.js';
import { hashKey, looksLikeUserKey, mintUserKey, sameHash } from './api-key-format.js';
import type { Principal } from './principal.js';

const INVALID = 'Invalid, expired or revoked API key';

/** Issues user API keys and authenticates requests that present one. */
export class ApiKeysService {
  constructor(
    private readonly store: ApiKeysStore,
    private readonly config: Pick<Config, 'keyPrefix' | 'defaultRateLimitRpm'>,
    private readonly clock: Clock,
  ) {}

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
      scopes: input.scopes ?? [],
      rate_limit_rpm: input.rateLimitRpm ?? null,
      is_active: true,
      expires_at: input.expiresAt ?? null,
    });
    return { row, key: minted.key };
  }

  /**
   * Resolves a bearer token to its caller. Every failure (malformed, unknown, revoked, expired,
   * past its grace period, owner deactivated) is the same 401, so a caller learns nothing.
   */
  async authenticate(token: string): Promise<Principal> {
    if (!looksLikeUserKey(token, this.config.keyPrefix)) throw new UnauthorizedError(INVALID, 'invalid_api_key');
    const digest = hashKey(token);
    const found = await this.store.findByHashWithOwner(digest);
    if (!found || !sameHash(found.key.key_hash, digest)) throw new UnauthorizedError(INVALID, 'invalid_api_key');
    const { key, user } = found;
    const now = this.clock.now().getTime();
    const usable =
      key.is_active &&
      user.is_active &&
      (key.expires_at === null || key.expires_at.getTime() > now) &&
      (key.grace_period_ends_at === null || key.grace_period_ends_at.getTime() > now);
    if (!usable) throw new UnauthorizedError(INVALID, 'invalid_api_key');
    return {
      userId: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      via: 'api_key',
      apiKeyId: key.id,
      scopes: key.scopes,
      rateLimitRpm: key.rate_limit_rpm ?? this.config.defaultRateLimitRpm,
    };
  }
}
