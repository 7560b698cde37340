import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { openRedis } from './connection.js';
import type { ChangeBus } from './change-bus.js';
import type { SessionRecord, SharedSessions } from '../domain/shared-sessions.js';

const KEY_PREFIX = 'toolgate:mcp-session:';
/** Longest a Redis command of the session store may take. */
const COMMAND_TIMEOUT_MS = 1000;
const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** A record read back from Redis, checked field by field (it crossed a process boundary). */
function parseRecord(raw: string): SessionRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object') return undefined;
  const r = v as Record<string, unknown>;
  if (typeof r.id !== 'string' || typeof r.scope !== 'string' || typeof r.credential !== 'string') return undefined;
  if (typeof r.protocolVersion !== 'string' || typeof r.initialized !== 'boolean') return undefined;
  const caps = r.clientCapabilities;
  return {
    id: r.id,
    scope: r.scope,
    credential: r.credential,
    protocolVersion: r.protocolVersion,
    initialized: r.initialized,
    ...(caps && typeof caps === 'object' && !Array.isArray(caps) ? { clientCapabilities: caps as Record<string, unknown> } : {}),
    ...(typeof r.logLevel === 'string' && LOG_LEVELS.has(r.logLevel) ? { logLevel: r.logLevel as SessionRecord['logLevel'] } : {}),
  };
}

/**
 * Stateful MCP sessions shared through Redis: one key per session (`toolgate:mcp-session:<id>`, a
 * JSON record with a TTL), read only for ids an instance does not know, and ends announced on the
 * change bus so every instance closes its copy (and its GET stream) at once. While Redis is
 * unreachable, every instance keeps serving the sessions it knows; a session opened meanwhile is
 * served only by the instance that opened it (a warning is logged once).
 */
export class RedisSharedSessions implements SharedSessions {
  private readonly redis: Redis;
  private warned = false;

  constructor(
    redisUrl: string,
    private readonly bus: ChangeBus,
    private readonly logger: Logger,
  ) {
    // A Redis that stops answering must not hold up initialize or a request: past this, the
    // session is served by its own instance only (save) or unknown here (load: 404, re-initialise).
    this.redis = openRedis(redisUrl, { purpose: 'mcp-sessions', commandTimeoutMs: COMMAND_TIMEOUT_MS });
    this.redis.on('error', (err: Error) => this.warn(err));
    this.redis.on('ready', () => (this.warned = false));
  }

  private warn(err: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.logger.warn(
      { reason: err instanceof Error ? err.message.slice(0, 200) : 'unknown' },
      'redis unreachable: MCP sessions opened now are served by this instance only',
    );
  }

  async save(record: SessionRecord, ttlMs: number): Promise<void> {
    try {
      await this.redis.set(KEY_PREFIX + record.id, JSON.stringify(record), 'PX', Math.max(1, Math.round(ttlMs)));
    } catch (err) {
      this.warn(err);
    }
  }

  async load(id: string): Promise<SessionRecord | undefined> {
    let raw: string | null;
    try {
      raw = await this.redis.get(KEY_PREFIX + id);
    } catch (err) {
      this.warn(err);
      return undefined;
    }
    return raw === null ? undefined : parseRecord(raw);
  }

  touch(ids: readonly string[], ttlMs: number): void {
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.pexpire(KEY_PREFIX + id, Math.max(1, Math.round(ttlMs)));
    pipeline.exec().catch((err: unknown) => this.warn(err));
  }

  end(id: string): void {
    this.redis.del(KEY_PREFIX + id).catch((err: unknown) => this.warn(err));
    this.bus.publish({ kind: 'mcp_session_ended', sessionId: id });
  }

  onEnded(listener: (id: string) => void): () => void {
    return this.bus.subscribe((m) => {
      if (m.kind === 'mcp_session_ended') listener(m.sessionId);
    });
  }

  /** Resolves once connected (tests and benchmarks wait for it). */
  async ready(): Promise<void> {
    for (let i = 0; i < 100 && this.redis.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
