import { Redis, type RedisOptions } from 'ioredis';

/**
 * The one way Toolgate opens a Redis connection (ioredis). Every connection fails fast instead of
 * queueing commands while Redis is away (callers fall back to this instance's own state), carries
 * a name that `CLIENT LIST` shows, and reconnects by itself. A subscriber connection is the
 * exception that queues: its SUBSCRIBE must go out once Redis is back.
 */
export interface RedisConnectionOptions {
  /** What the connection is for, shown by `CLIENT LIST` as `toolgate-<purpose>`. */
  purpose: string;
  /** Longest a command may take before it fails; unset: no limit. */
  commandTimeoutMs?: number;
  /** A pub/sub subscriber: commands queue while disconnected and are retried without limit. */
  subscriber?: boolean;
}

export function openRedis(url: string, options: RedisConnectionOptions): Redis {
  const base: RedisOptions = {
    connectionName: `toolgate-${options.purpose}`,
    enableOfflineQueue: options.subscriber === true,
    maxRetriesPerRequest: options.subscriber ? null : 1,
  };
  if (options.commandTimeoutMs !== undefined) base.commandTimeout = options.commandTimeoutMs;
  return new Redis(url, base);
}
