import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimitedError } from '../errors.js';
import type { Logger } from '../logger.js';
import { openRedis } from './connection.js';
import type { Principal } from '../domain/principal.js';

/** The budget left after a request: what the `RateLimit-*` headers report. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

const WINDOW_SECONDS = 60;

/** The `RateLimit-*` response headers for a state. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
  };
}

/** The kinds of budget requests are charged to. */
export type RateLimitSubject = 'api_key' | 'session' | 'address';

/**
 * Per-credential request budgets (requests per minute), with rate-limiter-flexible.
 *
 * - In memory by default: each instance counts on its own.
 * - With REDIS_URL: counters live in Redis, so every instance charges one shared budget.
 * - **Redis down** (documented fail mode): each instance falls back to an in-memory limiter with the
 *   same budget (rate-limiter-flexible's insurance limiter) and logs a warning; requests are never
 *   refused or failed because Redis is away, and shared counting resumes when it returns. The worst
 *   case during an outage is N instances × the budget.
 *
 * The budget is charged to the API key, or to the session for cookie callers, or to the client
 * address on public operations (`checkAddress`). The MCP endpoints call `check` with the same
 * principal, so REST and MCP share one budget per key.
 */
export class RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly redis: Redis | undefined;
  private warnedAt = 0;

  constructor(
    options: {
      redisUrl?: string | undefined;
      logger: Logger;
      keyPrefix?: string;
      addressRpm?: number;
      /** Told of every refusal (the metrics' rejection counter), by the kind of budget. */
      onReject?: (subject: RateLimitSubject) => void;
    },
    private readonly logger: Logger = options.logger,
  ) {
    this.keyPrefix = options.keyPrefix ?? 'toolgate:rl';
    this.addressRpm = options.addressRpm ?? 120;
    this.onReject = options.onReject;
    if (options.redisUrl) {
      this.redis = openRedis(options.redisUrl, { purpose: 'ratelimit' });
      // ioredis reconnects by itself; errors are reported through the warning below.
      this.redis.on('error', () => this.warnRedisDown());
    }
  }

  private readonly keyPrefix: string;
  private readonly addressRpm: number;
  private readonly onReject: ((subject: RateLimitSubject) => void) | undefined;

  /** Charges one request to the principal's budget; throws RateLimitedError past it. */
  async check(principal: Principal): Promise<RateLimitState> {
    const subject = principal.apiKeyId ? `key:${principal.apiKeyId}` : `session:${principal.sessionId ?? principal.userId}`;
    return this.consume(subject, principal.rateLimitRpm);
  }

  /** Charges one request to a client address (public operations: login, invitation lookup). */
  async checkAddress(ip: string): Promise<RateLimitState> {
    return this.consume(`ip:${ip}`, this.addressRpm);
  }

  /** Charges `subject` against `rpm` requests per minute. */
  async consume(subject: string, rpm: number): Promise<RateLimitState> {
    const limiter = this.limiterFor(rpm);
    // The insurance limiter takes over silently; say so in the log.
    if (this.redis && this.redis.status !== 'ready') this.warnRedisDown();
    try {
      const res = await limiter.consume(subject, 1);
      return { limit: rpm, remaining: res.remainingPoints, resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)) };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        this.onReject?.(subject.startsWith('key:') ? 'api_key' : subject.startsWith('ip:') ? 'address' : 'session');
        throw new RateLimitedError(retryAfter, rpm, `Rate limit exceeded: ${rpm} requests per minute`);
      }
      // A store failure the insurance limiter could not absorb: fail open, loudly.
      this.warnRedisDown();
      return { limit: rpm, remaining: rpm, resetSeconds: WINDOW_SECONDS };
    }
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }

  private limiterFor(rpm: number): RateLimiterAbstract {
    const name = `${this.keyPrefix}:${rpm}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      limiter = this.redis
        ? new RateLimiterRedis({
            storeClient: this.redis,
            points: rpm,
            duration: WINDOW_SECONDS,
            keyPrefix: name,
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory({ points: rpm, duration: WINDOW_SECONDS, keyPrefix: `${name}:insurance` }),
          })
        : new RateLimiterMemory({ points: rpm, duration: WINDOW_SECONDS, keyPrefix: name });
      this.limiters.set(name, limiter);
    }
    return limiter;
  }

  private warnRedisDown(): void {
    const now = Date.now();
    if (now - this.warnedAt < 60_000) return;
    this.warnedAt = now;
    this.logger.warn('redis unreachable: rate limits are counted per instance in memory until it returns');
  }
}
