import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/** A change another instance must hear about to drop what it cached. */
export type ChangeMessage =
  | { kind: 'api_key'; keyHash: string }
  | { kind: 'user'; userId: string }
  | { kind: 'session'; sessionId: string }
  | { kind: 'auth_settings' }
  | { kind: string; [field: string]: unknown };

type Listener = (message: ChangeMessage) => void;

/**
 * Change notifications between the instances of one deployment. `publish` delivers to this
 * process's listeners at once (synchronously) and, when Redis is configured, to every other
 * instance through Redis pub/sub. Delivery to other instances is best effort: caches also expire
 * on a short TTL, so a lost message costs at most that TTL.
 */
export interface ChangeBus {
  publish(message: ChangeMessage): void;
  subscribe(listener: Listener): () => void;
  close(): Promise<void>;
}

/** A bus for a single instance: delivery in process only. */
export class LocalChangeBus implements ChangeBus {
  protected readonly listeners = new Set<Listener>();

  publish(message: ChangeMessage): void {
    this.deliver(message);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected deliver(message: ChangeMessage): void {
    for (const l of this.listeners) l(message);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

const CHANNEL = 'toolgate:changes';

/**
 * A bus shared through Redis pub/sub (ioredis). Messages carry this instance's id so it ignores
 * its own echo. While Redis is down, local delivery goes on and remote instances fall back on
 * their cache TTL; ioredis reconnects by itself.
 */
export class RedisChangeBus extends LocalChangeBus {
  private readonly instanceId = randomUUID();
  private readonly pub: Redis;
  private readonly sub: Redis;

  constructor(
    redisUrl: string,
    private readonly logger: Logger,
  ) {
    super();
    const options = { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectionName: 'toolgate-changes' };
    this.pub = new Redis(redisUrl, options);
    this.sub = new Redis(redisUrl, { ...options, enableOfflineQueue: true, maxRetriesPerRequest: null });
    let warned = false;
    for (const client of [this.pub, this.sub]) {
      client.on('error', (err: Error) => {
        if (warned) return;
        warned = true;
        logger.warn({ reason: err.message.slice(0, 200) }, 'redis unreachable: change notifications to other instances paused');
      });
      client.on('ready', () => (warned = false));
    }
    this.sub.subscribe(CHANNEL).catch(() => undefined);
    this.sub.on('message', (_channel: string, raw: string) => {
      try {
        const { from, message } = JSON.parse(raw) as { from: string; message: ChangeMessage };
        if (from !== this.instanceId) this.deliver(message);
      } catch {
        this.logger.warn('ignored a malformed change notification');
      }
    });
  }

  /** Resolves once the subscription is live (tests wait for it before publishing). */
  async ready(): Promise<void> {
    for (let i = 0; i < 100 && this.sub.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 20));
  }

  override publish(message: ChangeMessage): void {
    this.deliver(message);
    this.pub.publish(CHANNEL, JSON.stringify({ from: this.instanceId, message })).catch(() => undefined);
  }

  override async close(): Promise<void> {
    await super.close();
    this.pub.disconnect();
    this.sub.disconnect();
  }
}
