import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { parseChangeMessage, type ChangeMessage } from './change-messages.js';
import { openRedis } from './connection.js';

export type { ChangeMessage } from './change-messages.js';

/**
 * Hears a change. A listener whose work goes on after it returns (a re-read from the database)
 * returns the promise of that work: the change counts as applied on this instance once it settles.
 */
type Listener = (message: ChangeMessage) => void | Promise<unknown>;

/**
 * Change notifications between the instances of one deployment. `publish` delivers to this
 * process's listeners at once (synchronously) and, when Redis is configured, to every other
 * instance through Redis pub/sub. Delivery to other instances is best effort: caches also expire
 * on a short TTL, so a lost message costs at most that TTL.
 */
export interface ChangeBus {
  publish(message: ChangeMessage): void;
  subscribe(listener: Listener): () => void;
  /**
   * Read-your-writes across instances: settles once every change announced by any instance
   * before the call has been applied here (its listeners' work settled), or after a bounded wait.
   * Undefined when there is nothing to wait for (a single instance, Redis unreachable).
   */
  caughtUp(): Promise<void> | undefined;
  /**
   * Settles once the changes this instance announced so far have reached Redis, or after a
   * bounded wait; undefined when none is on its way. A write answers only after it, so a client
   * that goes on to another instance finds the change announced there.
   */
  sent(): Promise<void> | undefined;
  close(): Promise<void>;
}

/** A bus for a single instance: delivery in process only. */
export class LocalChangeBus implements ChangeBus {
  protected readonly listeners = new Set<Listener>();

  publish(message: ChangeMessage): void {
    void this.deliver(message);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  caughtUp(): Promise<void> | undefined {
    return undefined;
  }

  sent(): Promise<void> | undefined {
    return undefined;
  }

  /** Calls every listener; returns the work they left running (its failures are theirs to report). */
  protected deliver(message: ChangeMessage): Promise<unknown>[] {
    const work: Promise<unknown>[] = [];
    for (const l of this.listeners) {
      const running = l(message);
      if (running) work.push(running.catch(() => undefined));
    }
    return work;
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

/**
 * Pub/sub channels are server-wide while keys belong to one database number: the channel of a
 * deployment on database n > 0 carries the number too, so deployments on one Redis server with
 * their own database numbers never hear each other's changes (nor count them).
 */
const CHANNEL = 'toolgate:changes';
/** The number of changes ever announced in the deployment; each message carries its own. */
const SEQUENCE = 'toolgate:changes:seq';
/**
 * Numbers the message and publishes it in one step, so the count never runs ahead of the channel.
 * The number goes first in the message's JSON object (`{"seq":n,"from":…}`): an instance of an
 * earlier version, during a rolling upgrade, reads the rest as before.
 */
const ANNOUNCE = `local n = redis.call('INCR', KEYS[1])
redis.call('PUBLISH', ARGV[1], '{"seq":' .. n .. ',' .. string.sub(ARGV[2], 2))
return n`;

/** The longest a request waits for a change message, or for Redis to answer. */
export const CATCH_UP_MS = 500;
/** After Redis failed to answer in time, requests stop waiting on it for this long. */
const BACK_OFF_MS = 5000;

type Announcer = Redis & { announce(key: string, channel: string, payload: string): Promise<number> };

/**
 * A bus shared through Redis pub/sub (ioredis). Messages carry this instance's id so it ignores
 * its own echo, and a deployment-wide sequence number (an INCR made with the PUBLISH, in one
 * script): an instance knows how far it has applied the deployment's changes, and `caughtUp()`
 * compares that with the current count in Redis. While Redis is down, local delivery goes on,
 * remote instances fall back on their cache TTL, and nothing waits on Redis; ioredis reconnects
 * by itself.
 */
export class RedisChangeBus extends LocalChangeBus {
  private readonly instanceId = randomUUID();
  private readonly pub: Announcer;
  private readonly sub: Redis;
  private readonly channel: string;
  /** The highest sequence number whose changes (and every earlier one's) are applied here. */
  private applied = 0;
  /** Unset until subscribed: before that there is no message to wait for. */
  private live = false;
  private starting = false;
  /** Settles in arrival order, as each message's listeners finish. */
  private settling: Promise<unknown> = Promise.resolve();
  private readonly waiters = new Set<{ seq: number; done: () => void }>();
  /** The count query in flight, and the one queued behind it for callers that came in after it was sent. */
  private counting: Promise<number> | undefined;
  private nextCount: Promise<number> | undefined;
  private pendingSends = 0;
  private lastSend: Promise<void> = Promise.resolve();
  /** Redis failed to answer in time: requests do not wait on it until then (ms since epoch). */
  private backOffUntil = 0;

  constructor(
    redisUrl: string,
    private readonly logger: Logger,
  ) {
    super();
    this.pub = openRedis(redisUrl, { purpose: 'changes', commandTimeoutMs: CATCH_UP_MS }) as Announcer;
    this.pub.defineCommand('announce', { numberOfKeys: 1, lua: ANNOUNCE });
    const db = this.pub.options.db ?? 0;
    this.channel = db ? `${CHANNEL}:${db}` : CHANNEL;
    this.sub = openRedis(redisUrl, { purpose: 'changes', subscriber: true });
    let warned = false;
    for (const client of [this.pub, this.sub]) {
      client.on('error', (err: Error) => {
        if (warned) return;
        warned = true;
        logger.warn({ reason: err.message.slice(0, 200) }, 'redis unreachable: change notifications to other instances paused');
      });
      client.on('ready', () => (warned = false));
    }
    this.sub.subscribe(this.channel).then(
      () => this.startCounting(),
      () => undefined,
    );
    // After a reconnection (ioredis subscribes again), messages sent meanwhile are lost: count from
    // now on. Not on the first connection: the subscription above counts once it holds, and a
    // second count taken later would skip a change that arrived in between, unapplied.
    let connections = 0;
    this.sub.on('ready', () => {
      if (connections++ > 0) void this.startCounting();
    });
    this.sub.on('message', (_channel: string, raw: string) => this.receive(raw));
  }

  /** Resolves once the subscription is live (tests wait for it before publishing). */
  async ready(): Promise<void> {
    for (let i = 0; i < 100 && !(this.sub.status === 'ready' && this.live); i++) await new Promise((r) => setTimeout(r, 20));
  }

  override publish(message: ChangeMessage): void {
    void this.deliver(message);
    this.pendingSends += 1;
    this.lastSend = this.pub.announce(SEQUENCE, this.channel, JSON.stringify({ from: this.instanceId, message })).then(
      () => void (this.pendingSends -= 1),
      (err: unknown) => {
        this.pendingSends -= 1;
        this.noteFailure(err);
      },
    );
  }

  override sent(): Promise<void> | undefined {
    // Redis known to be unresponsive: a write does not wait for its announcement either.
    if (this.pendingSends === 0 || Date.now() < this.backOffUntil) return undefined;
    // Commands on one connection are answered in order: the last one answered means all were.
    return this.lastSend;
  }

  override caughtUp(): Promise<void> | undefined {
    if (this.sub.status !== 'ready' || Date.now() < this.backOffUntil) return undefined;
    if (!this.live) {
      void this.startCounting();
      return undefined;
    }
    return this.count().then((seq) => this.reached(seq));
  }

  override async close(): Promise<void> {
    await super.close();
    for (const w of this.waiters) w.done();
    this.pub.disconnect();
    this.sub.disconnect();
  }

  private receive(raw: string): void {
    let seq: unknown;
    let work: Promise<unknown>[] = [];
    try {
      const parsed = JSON.parse(raw) as { seq?: unknown; from?: unknown; message?: unknown };
      seq = parsed.seq;
      const message = parseChangeMessage(parsed.message);
      // A kind this version does not know (a newer instance, mid-upgrade) is counted, not delivered.
      if (parsed.from !== this.instanceId && message) work = this.deliver(message);
    } catch {
      this.logger.warn('ignored a malformed change notification');
    }
    // An instance of an earlier version sends no number: its change is applied, nothing counted.
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) return;
    const applied = seq;
    this.settling = this.settling.then(() => (work.length ? Promise.all(work) : undefined)).then(() => this.advance(applied));
  }

  private advance(seq: number): void {
    if (seq <= this.applied) return;
    this.applied = seq;
    for (const w of this.waiters) if (w.seq <= seq) w.done();
  }

  /** Waits until the changes up to `seq` are applied here, at most CATCH_UP_MS. */
  private reached(seq: number): Promise<void> | void {
    if (seq <= this.applied) return;
    return new Promise<void>((resolve) => {
      const waiter = {
        seq,
        done: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        // The message is late or was lost (a reconnection): later requests need not wait for it.
        this.logger.warn({ waitedMs: CATCH_UP_MS }, 'a change notification from another instance is late; serving without it');
        this.advance(seq);
        waiter.done();
      }, CATCH_UP_MS);
      this.waiters.add(waiter);
    });
  }

  /**
   * The deployment's change count, read after the call: concurrent callers share one query, and a
   * caller that comes in while one is in flight (it may have been answered already) joins the next.
   */
  private count(): Promise<number> {
    if (!this.counting) return this.query();
    this.nextCount ??= this.counting.then(() => {
      this.nextCount = undefined;
      return this.query();
    });
    return this.nextCount;
  }

  private query(): Promise<number> {
    const q: Promise<number> = this.pub.get(SEQUENCE).then(
      (value) => Number(value ?? 0) || 0,
      (err: unknown) => {
        this.noteFailure(err);
        return 0;
      },
    );
    this.counting = q;
    void q.then(() => {
      if (this.counting === q) this.counting = undefined;
    });
    return q;
  }

  /**
   * Once subscribed: what was announced before is history (the caches were loaded after it, or
   * have their TTL). Until this has read the count, requests do not wait.
   */
  private async startCounting(): Promise<void> {
    if (this.starting) return;
    this.starting = true;
    try {
      this.advance(Number((await this.pub.get(SEQUENCE)) ?? 0) || 0);
      this.live = true;
    } catch (err) {
      this.noteFailure(err);
    } finally {
      this.starting = false;
    }
  }

  private noteFailure(err: unknown): void {
    // A command that timed out: Redis is slow or swallowing packets, so nothing waits on it for a while.
    if (err instanceof Error && /timed? ?out/i.test(err.message)) this.backOffUntil = Date.now() + BACK_OFF_MS;
  }
}
