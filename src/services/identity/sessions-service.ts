import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { SessionsStore, SessionWithUser } from '../../stores/sessions-store.js';
import { ALL_SCOPES } from './api-keys-service.js';
import type { AuthSettingsService } from './auth-settings-service.js';
import type { ChangeBus } from '../../redis/change-bus.js';
import type { Principal } from '../../domain/principal.js';

const INVALID = 'Invalid or expired session';
const VERSION = 's1';
const TTL_MS = 5_000;
const TOKEN = /^s1\.([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** A new session: the cookie value and when it expires. */
export interface IssuedSession {
  token: string;
  sessionId: string;
  expiresAt: Date;
  maxAgeMs: number;
}

/**
 * Browser sessions behind the `access_token` cookie. The token is `s1.<session id>.<expiry>.<mac>`,
 * HMAC-SHA256 under a key derived from the master key, so a forged or altered token is refused
 * without touching the database. The session row makes it revocable (logout, deactivation); rows
 * are cached in memory like API keys and dropped on change, here and through the change bus.
 */
export class SessionsService {
  private readonly cache = new Map<string, { found: SessionWithUser; principal: Principal; loadedAt: number }>();
  private generation = 0;
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: SessionsStore,
    private readonly signingKey: Buffer,
    private readonly clock: Clock,
    private readonly authSettings: AuthSettingsService,
    private readonly bus: ChangeBus,
    /** The default rate limit in force (general settings), read on every request. */
    private readonly defaultRateLimitRpm: () => number,
  ) {
    bus.subscribe((m) => {
      if (m.kind === 'session' && typeof m.sessionId === 'string') this.drop(m.sessionId);
      else if (m.kind === 'user' && typeof m.userId === 'string') this.dropUser(m.userId);
    });
  }

  /**
   * Opens a session for a user; its lifetime is the auth setting `access_token_expire_minutes`,
   * cut to `notAfter` when that comes first (a session opened with an API key never outlives it).
   */
  async create(userId: string, authProvider: string | null, options: { notAfter?: Date | null } = {}): Promise<IssuedSession> {
    const minutes = (await this.authSettings.get()).access_token_expire_minutes;
    const now = this.clock.now().getTime();
    let maxAgeMs = minutes * 60_000;
    let expiresMs = Math.floor((now + maxAgeMs) / 1000) * 1000;
    if (options.notAfter && options.notAfter.getTime() < expiresMs) {
      expiresMs = Math.floor(options.notAfter.getTime() / 1000) * 1000;
      maxAgeMs = Math.max(0, expiresMs - now);
    }
    const expiresAt = new Date(expiresMs);
    const sessionId = randomUUID();
    await this.store.insert({ id: sessionId, user_id: userId, auth_provider: authProvider, expires_at: expiresAt });
    const exp = String(expiresAt.getTime() / 1000);
    return { token: `${VERSION}.${sessionId}.${exp}.${this.mac(sessionId, exp)}`, sessionId, expiresAt, maxAgeMs };
  }

  /** Resolves a cookie value to its caller; any failure is the same 401. */
  async authenticate(token: string): Promise<Principal> {
    const match = TOKEN.exec(token);
    if (!match) throw new UnauthorizedError(INVALID, 'invalid_session');
    const [, sessionId, exp, mac] = match as unknown as [string, string, string, string];
    const expected = Buffer.from(this.mac(sessionId, exp));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new UnauthorizedError(INVALID, 'invalid_session');
    const now = this.clock.now().getTime();
    if (Number(exp) * 1000 <= now) throw new UnauthorizedError(INVALID, 'invalid_session');
    const entry = await this.lookup(sessionId);
    if (!entry) throw new UnauthorizedError(INVALID, 'invalid_session');
    const { session, user } = entry.found;
    if (session.revoked_at || !user.is_active || session.expires_at.getTime() <= now) {
      throw new UnauthorizedError(INVALID, 'invalid_session');
    }
    return entry.principal;
  }

  /** Starts the hourly purge of expired sessions (harmless when several instances do it at once). */
  start(): void {
    this.purgeTimer ??= setInterval(() => void this.purgeExpired().catch(() => undefined), 3_600_000);
    this.purgeTimer.unref();
  }

  stop(): void {
    clearInterval(this.purgeTimer);
    this.purgeTimer = undefined;
  }

  /** Deletes sessions that expired more than a day ago (housekeeping); returns how many. */
  async purgeExpired(): Promise<number> {
    return this.store.deleteExpired(new Date(this.clock.now().getTime() - 86_400_000));
  }

  /** Ends a session at once, here and on every instance. */
  async revoke(sessionId: string): Promise<void> {
    await this.store.revoke(sessionId, this.clock.now());
    this.drop(sessionId);
    this.bus.publish({ kind: 'session', sessionId });
  }

  private async lookup(sessionId: string) {
    const hit = this.cache.get(sessionId);
    const nowMs = this.clock.now().getTime();
    if (hit && nowMs - hit.loadedAt < TTL_MS) return hit;
    const generation = this.generation;
    const found = await this.store.findWithUser(sessionId);
    if (!found) return undefined;
    const defaultRpm = this.defaultRateLimitRpm;
    const entry = {
      found,
      loadedAt: nowMs,
      principal: Object.freeze({
        userId: found.user.id,
        email: found.user.email,
        name: found.user.name,
        role: found.user.role,
        via: 'cookie' as const,
        apiKeyId: null,
        sessionId,
        scopes: ALL_SCOPES,
        get rateLimitRpm() {
          return defaultRpm();
        },
      }),
    };
    if (generation === this.generation) this.cache.set(sessionId, entry);
    return entry;
  }

  private drop(sessionId: string): void {
    this.generation += 1;
    this.cache.delete(sessionId);
  }

  private dropUser(userId: string): void {
    this.generation += 1;
    for (const [id, e] of this.cache) if (e.found.user.id === userId) this.cache.delete(id);
  }

  private mac(sessionId: string, exp: string): string {
    return createHmac('sha256', this.signingKey).update(`${VERSION}.${sessionId}.${exp}`).digest('base64url');
  }
}
