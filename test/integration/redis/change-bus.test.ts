import { Writable } from 'node:stream';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createLogger } from '../../../src/logger.js';
import { CATCH_UP_MS, RedisChangeBus, type ChangeMessage } from '../../../src/redis/change-bus.js';
import { FaultProxy } from '../../helpers/fault-proxy.js';

/**
 * The change bus between instances on the local Redis: delivery, and read-your-writes
 * (`caughtUp` waits for what other instances announced before it; `sent` for this one's own).
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SEQUENCE = 'toolgate:changes:seq';

function logs() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, logger: createLogger({ logLevel: 'info' }, sink) };
}

async function bus(url = REDIS_URL) {
  const log = logs();
  const b = new RedisChangeBus(url, log.logger);
  await b.ready();
  return Object.assign(b, { lines: log.lines });
}

/** Milliseconds `p` took to settle; 0 for nothing to wait for. */
async function took(p: Promise<void> | undefined): Promise<number> {
  const t0 = performance.now();
  await p;
  return p ? performance.now() - t0 : 0;
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).to.equal(true);
};

describe('change bus (Redis): delivery and read-your-writes across instances', function () {
  this.timeout(20000);
  let redis: Redis;
  let a: Awaited<ReturnType<typeof bus>>;
  let b: Awaited<ReturnType<typeof bus>>;

  before(async () => {
    redis = new Redis(REDIS_URL);
  });
  beforeEach(async () => {
    a = await bus();
    b = await bus();
  });
  afterEach(async () => {
    await a.close();
    await b.close();
  });
  after(() => redis.disconnect());

  it('delivers a change to this instance at once and to the other one through Redis, never back to its sender', async () => {
    const heardA: ChangeMessage[] = [];
    const heardB: ChangeMessage[] = [];
    a.subscribe((m) => void heardA.push(m));
    b.subscribe((m) => void heardB.push(m));
    a.publish({ kind: 'api_key', keyHash: 'h1' });
    expect(heardA).to.deep.equal([{ kind: 'api_key', keyHash: 'h1' }]);
    await until(() => heardB.length === 1);
    expect(heardB).to.deep.equal([{ kind: 'api_key', keyHash: 'h1' }]);
    await new Promise((r) => setTimeout(r, 50));
    expect(heardA).to.have.length(1);
  });

  it('sent(): settles once the change is counted in Redis; nothing to wait for before or after', async () => {
    expect(a.sent()).to.equal(undefined);
    const before = Number(await redis.get(SEQUENCE));
    a.publish({ kind: 'user', userId: 'u1' });
    const sending = a.sent();
    expect(sending).to.be.instanceOf(Promise);
    await sending;
    expect(Number(await redis.get(SEQUENCE))).to.equal(before + 1);
    expect(a.sent()).to.equal(undefined);
  });

  it('caughtUp(): waits until the other instance’s change is applied here, listeners’ work included', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let applied = false;
    b.subscribe((m) => {
      if (m.kind !== 'bundle') return;
      return held.then(() => void (applied = true));
    });
    // Nothing announced yet: B is caught up at once.
    expect(await took(b.caughtUp())).to.be.below(CATCH_UP_MS / 2);
    a.publish({ kind: 'bundle', bundleId: 'x', from: 'instance-a' });
    await a.sent();
    let caughtUp = false;
    const waiting = b.caughtUp()!.then(() => void (caughtUp = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(caughtUp, 'caught up before the listener finished').to.equal(false);
    release();
    await waiting;
    expect(applied).to.equal(true);
    expect(await took(b.caughtUp())).to.be.below(CATCH_UP_MS / 2);
  });

  it('caughtUp(): many concurrent callers share the count query and all wait for the same change', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    b.subscribe((m) => (m.kind === 'bundle' ? held : undefined));
    a.publish({ kind: 'bundle', bundleId: 'y', from: 'instance-a' });
    await a.sent();
    const gets = async () => Number(/cmdstat_get:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
    const getsBefore = await gets();
    const settled: boolean[] = [];
    const all = Promise.all(Array.from({ length: 50 }, (_, i) => b.caughtUp()!.then(() => (settled[i] = true))));
    await new Promise((r) => setTimeout(r, 50));
    expect(settled.filter(Boolean)).to.have.length(0);
    release();
    await all;
    expect(settled.filter(Boolean)).to.have.length(50);
    // One query for the first caller, one for all who came while it was in flight (and this test's own INFO is no GET).
    expect((await gets()) - getsBefore).to.be.within(1, 3);
  });

  it('a change whose message never arrives costs one bounded wait and a warning; later requests do not wait', async () => {
    // Counted, never published: as a message lost while B's subscription was reconnecting.
    await redis.incr(SEQUENCE);
    const waited = await took(b.caughtUp());
    expect(waited).to.be.within(CATCH_UP_MS - 20, CATCH_UP_MS * 3);
    expect(b.lines.some((l) => String(l.msg).includes('late'))).to.equal(true);
    expect(await took(b.caughtUp())).to.be.below(CATCH_UP_MS / 2);
  });

  it('after its subscription reconnects, does not wait for the changes announced while it was away', async () => {
    // Every subscriber connection dropped: what A announces now reaches no one.
    await redis.client('KILL', 'TYPE', 'pubsub');
    a.publish({ kind: 'bundle', bundleId: 'lost', from: 'instance-a' });
    await a.sent();
    await b.ready();
    const sub = (b as unknown as { sub: Redis }).sub;
    await until(() => sub.status === 'ready');
    // The reconnection counts from the current number: the lost change costs no wait.
    await new Promise((r) => setTimeout(r, 100));
    expect(await took(b.caughtUp())).to.be.below(CATCH_UP_MS / 2);
  });

  it('hears a message of an instance of the previous version (JSON without a sequence number)', async () => {
    const heard: ChangeMessage[] = [];
    b.subscribe((m) => void heard.push(m));
    await redis.publish('toolgate:changes', JSON.stringify({ from: 'old-instance', message: { kind: 'auth_settings' } }));
    await until(() => heard.length === 1);
    expect(heard[0]).to.deep.equal({ kind: 'auth_settings' });
  });

  it('sends what an instance of the previous version reads: one JSON object with from and message (and the number)', async () => {
    const raw = new Redis(REDIS_URL);
    try {
      const seen: string[] = [];
      raw.on('message', (_channel: string, text: string) => seen.push(text));
      await raw.subscribe('toolgate:changes');
      a.publish({ kind: 'user', userId: 'u-wire' });
      await a.sent();
      await until(() => seen.length === 1);
      const parsed = JSON.parse(seen[0]!) as { seq: number; from: string; message: ChangeMessage };
      expect(parsed.message).to.deep.equal({ kind: 'user', userId: 'u-wire' });
      expect(parsed.from).to.be.a('string');
      expect(parsed.seq).to.equal(Number(await redis.get(SEQUENCE)));
    } finally {
      raw.disconnect();
    }
  });

  it('keeps deployments on different database numbers of one Redis server apart', async () => {
    const url1 = new URL(REDIS_URL);
    url1.pathname = '/1';
    const c = await bus(url1.toString());
    const d = await bus(url1.toString());
    try {
      const heardB: ChangeMessage[] = [];
      const heardD: ChangeMessage[] = [];
      b.subscribe((m) => void heardB.push(m));
      d.subscribe((m) => void heardD.push(m));
      const countOn0 = Number(await redis.get(SEQUENCE));
      c.publish({ kind: 'user', userId: 'on-db-1' });
      await c.sent();
      await until(() => heardD.length === 1);
      expect(heardD[0]).to.deep.equal({ kind: 'user', userId: 'on-db-1' });
      await new Promise((r) => setTimeout(r, 50));
      expect(heardB).to.deep.equal([]);
      expect(Number(await redis.get(SEQUENCE))).to.equal(countOn0);
      expect(await took(b.caughtUp())).to.be.below(CATCH_UP_MS / 2);
    } finally {
      await c.close();
      await d.close();
    }
  });

  /** A bus whose Redis is reached through a fault proxy, for `fn`; everything closed after. */
  async function behindProxy(fn: (c: Awaited<ReturnType<typeof bus>>, proxy: FaultProxy) => Promise<void>): Promise<void> {
    const proxy = await new FaultProxy('127.0.0.1', Number(new URL(REDIS_URL).port || 6379)).start();
    const c = await bus(`redis://127.0.0.1:${proxy.port}`);
    try {
      await fn(c, proxy);
    } finally {
      proxy.restore();
      await c.close();
      await proxy.stop();
    }
  }

  it('never makes a request wait on an unreachable Redis', () =>
    behindProxy(async (c, proxy) => {
      proxy.block();
      await until(() => c.caughtUp() === undefined);
      c.publish({ kind: 'auth_settings' });
      expect(await took(c.sent())).to.be.below(CATCH_UP_MS * 3);
    }));

  it('waits at most once on a Redis that swallows packets, then not at all for a while, writes included', () =>
    behindProxy(async (c, proxy) => {
      proxy.blackhole();
      const first = await took(c.caughtUp());
      expect(first).to.be.within(CATCH_UP_MS - 20, CATCH_UP_MS * 3);
      expect(c.caughtUp()).to.equal(undefined);
      // Nor does a write wait for its announcement meanwhile.
      c.publish({ kind: 'auth_settings' });
      expect(c.sent()).to.equal(undefined);
    }));
});
