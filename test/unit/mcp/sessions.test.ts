import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import {
  EventLog,
  PROVISIONAL_IDLE_MS,
  REPLAY_MAX_BYTES,
  REPLAY_MAX_EVENTS,
  SessionStore,
  type SessionRecord,
  type SharedSessions,
} from '../../../src/mcp/sessions.js';
import { CallRecorder } from '../../../src/mcp/call-recorder.js';
import type { CallRecord, CallRecordSink } from '../../../src/domain/call-records.js';
import { createLogger } from '../../../src/logger.js';
import { loadConfig } from '../../../src/config.js';

describe('MCP sessions', () => {
  it('creates unguessable ids, expires idle sessions, ends sessions of a replaced key', () => {
    let now = 1_000;
    const store = new SessionStore(100, () => now);
    try {
      const a = store.create('b1', 'k1', '2025-11-25');
      const b = store.create('b1', 'k2', '2025-11-25');
      expect(a.id).to.match(/^[A-Za-z0-9_-]{32}$/);
      expect(a.id).to.not.equal(b.id);
      now += 50;
      expect(store.get(a.id)).to.equal(a);
      store.endForBundle('b1', 'k2');
      expect(store.get(a.id)).to.equal(undefined);
      expect(store.get(b.id)).to.equal(b);
      now += 101;
      expect(store.get(b.id)).to.equal(undefined);
      expect(store.size).to.equal(0);
    } finally {
      store.close();
    }
  });
});

describe('MCP session cap per scope', () => {
  it('evicts the least recently used idle session of a full scope, never one with an open stream first, and leaves other scopes alone', () => {
    let now = 1_000;
    const store = new SessionStore(30 * 60_000, () => now, { maxPerScope: 3 });
    const ended: string[] = [];
    store.onEnd = (s) => ended.push(s.id);
    try {
      const a = store.create('b1', 'k', '2025-11-25');
      now += 1;
      const b = store.create('b1', 'k', '2025-11-25');
      now += 1;
      const c = store.create('b1', 'k', '2025-11-25');
      const other = store.create('b2', 'k', '2025-11-25');
      // `a` is the oldest but holds a GET stream; `b` is then the least recently used idle one.
      store.attachStream(a, new PassThrough() as unknown as ServerResponse);
      now += 1;
      store.get(c.id);
      now += 1;
      const d = store.create('b1', 'k', '2025-11-25');
      expect(ended).to.deep.equal([b.id]);
      expect(store.get(b.id)).to.equal(undefined);
      for (const kept of [a, c, d, other]) expect(store.get(kept.id)).to.equal(kept);
      expect(store.countForScope('b1')).to.equal(3);
      expect(store.countForScope('b2')).to.equal(1);
      // Every session streaming: the least recently used goes all the same (the cap holds).
      store.attachStream(c, new PassThrough() as unknown as ServerResponse);
      store.attachStream(d, new PassThrough() as unknown as ServerResponse);
      now += 1;
      store.get(c.id);
      store.get(d.id);
      store.create('b1', 'k', '2025-11-25');
      expect(store.get(a.id)).to.equal(undefined);
      expect(store.countForScope('b1')).to.equal(3);
    } finally {
      store.close();
    }
  });
});

/** A shared store in memory, counting what the session store asks of it. */
class FakeShared implements SharedSessions {
  readonly records = new Map<string, { record: SessionRecord; ttlMs: number }>();
  loads = 0;
  touched: string[][] = [];
  ended: string[] = [];
  private listeners = new Set<(id: string) => void>();
  async save(record: SessionRecord, ttlMs: number): Promise<void> {
    this.records.set(record.id, { record, ttlMs });
  }
  async load(id: string): Promise<SessionRecord | undefined> {
    this.loads += 1;
    return this.records.get(id)?.record;
  }
  touch(ids: readonly string[]): void {
    this.touched.push([...ids]);
  }
  end(id: string): void {
    this.ended.push(id);
    this.records.delete(id);
  }
  onEnded(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  /** Another instance ended a session. */
  announce(id: string): void {
    for (const l of this.listeners) l(id);
  }
  async close(): Promise<void> {}
}

describe('MCP sessions shared between instances', () => {
  it('serves a known id from memory, loads an unknown one once, and shares ends but not idle expiry', async () => {
    let now = 1_000;
    const shared = new FakeShared();
    const a = new SessionStore(60_000, () => now, { shared });
    const b = new SessionStore(60_000, () => now, { shared });
    try {
      const s = a.create('b1', 'k', '2025-11-25');
      s.clientCapabilities = { sampling: {} };
      await a.persist(s);
      expect(shared.records.get(s.id)!.record).to.deep.equal({
        id: s.id,
        scope: 'b1',
        credential: 'k',
        protocolVersion: '2025-11-25',
        initialized: false,
        clientCapabilities: { sampling: {} },
      });
      // Known on A: no load. Unknown on B: one load (concurrent requests share it), then memory.
      expect(a.resolve(s.id)).to.equal(s);
      const [first, second] = await Promise.all([b.resolve(s.id), b.resolve(s.id)]);
      expect(shared.loads).to.equal(1);
      expect(first).to.equal(second);
      expect(first!.scope).to.equal('b1');
      expect(first!.clientCapabilities).to.deep.equal({ sampling: {} });
      expect(b.resolve(s.id)).to.equal(first);
      expect(shared.loads).to.equal(1);
      expect(await b.resolve('unknown')).to.equal(undefined);
      // A sweep touches the shared records of the sessions used since the last one.
      now += 1_000;
      b.get(s.id);
      b.sweep();
      expect(shared.touched.at(-1)).to.deep.equal([s.id]);
      // Idle on A only: A forgets it, the shared record stays (B uses it).
      now += 60_001;
      b.get(s.id);
      a.sweep();
      expect(a.get(s.id)).to.equal(undefined);
      expect(shared.ended).to.deep.equal([]);
      expect(await a.resolve(s.id)).to.not.equal(undefined);
      // An explicit end is shared; an end announced by another instance ends the local copy.
      a.end(s.id);
      expect(shared.ended).to.deep.equal([s.id]);
      shared.announce(s.id);
      expect(b.get(s.id)).to.equal(undefined);
      // Sessions of the legacy HTTP+SSE transport are bound to their stream: never shared.
      const sse = a.create('b1', 'k', '2024-11-05', { sseTransport: true });
      await a.persist(sse);
      a.end(sse.id);
      expect(shared.records.has(sse.id)).to.equal(false);
      expect(shared.ended).to.deep.equal([s.id]);
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('MCP implicit sessions', () => {
  it('ends an implicit session unused for a minute, unless the client named it again', () => {
    let now = 1_000;
    const store = new SessionStore(30 * 60_000, () => now);
    try {
      const forgotten = store.create('b1', 'k1', '2025-03-26', { implicit: true });
      const reused = store.create('b1', 'k1', '2025-03-26', { implicit: true });
      expect(forgotten.initialized).to.equal(true);
      expect(store.get(reused.id)).to.equal(reused);
      now += PROVISIONAL_IDLE_MS + 1;
      store.sweep();
      expect(store.get(forgotten.id)).to.equal(undefined);
      expect(store.get(reused.id)).to.equal(reused);
      // An explicit session waits for its initialized notification.
      expect(store.create('b1', 'k1', '2025-11-25').initialized).to.equal(false);
    } finally {
      store.close();
    }
  });
});

describe('MCP GET stream event log', () => {
  it('numbers events from 1 and replays those after an id', () => {
    const log = new EventLog();
    expect(log.append('{"a":1}')).to.equal('id: 1\nevent: message\ndata: {"a":1}\n\n');
    log.append('{"a":2}');
    log.append('{"a":3}');
    expect(log.after('1')).to.deep.equal(['id: 2\nevent: message\ndata: {"a":2}\n\n', 'id: 3\nevent: message\ndata: {"a":3}\n\n']);
    expect(log.after('3')).to.deep.equal([]);
    expect(log.after('4')).to.deep.equal([]);
    expect(log.after('x1')).to.deep.equal([]);
    expect(log.after('0')).to.have.length(3);
  });

  it(`keeps at most ${REPLAY_MAX_EVENTS} events and ${REPLAY_MAX_BYTES} bytes, the newest`, () => {
    const log = new EventLog();
    for (let i = 1; i <= REPLAY_MAX_EVENTS + 50; i++) log.append(`{"n":${i}}`);
    const kept = log.after('0');
    expect(kept).to.have.length(REPLAY_MAX_EVENTS);
    expect(kept[0]).to.match(/^id: 51\n/);
    const big = new EventLog();
    const data = `"${'x'.repeat(300 * 1024)}"`;
    for (let i = 0; i < 5; i++) big.append(data);
    const frames = big.after('0');
    expect(frames).to.have.length(3);
    expect(frames.reduce((n, f) => n + Buffer.byteLength(f), 0)).to.be.at.most(REPLAY_MAX_BYTES);
    expect(frames[0]).to.match(/^id: 3\n/);
  });
});

describe('call recorder', () => {
  const logger = createLogger(loadConfig({ TOOLGATE_LOG_LEVEL: 'silent' }));
  const record = (n: number): CallRecord => ({
    occurred_at: new Date(),
    endpoint: 'bundle',
    bundle_id: null,
    server_id: null,
    server_name: null,
    tool_id: null,
    tool_name: `t${n}`,
    user_id: null,
    api_key_id: null,
    oauth_client_id: null,
    status: 'ok',
    latency_ms: 1,
    error: null,
  });

  it('writes in batches and keeps records across a failed write', async () => {
    const batches: number[] = [];
    let fail = true;
    const store = {
      async insertMany(rs: readonly CallRecord[]) {
        if (fail) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        batches.push(rs.length);
      },
    } as unknown as CallRecordSink;
    const recorder = new CallRecorder(store, logger, { batchSize: 2, flushIntervalMs: 10_000 });
    for (let i = 0; i < 5; i++) recorder.record(record(i));
    await recorder.flush();
    expect(recorder.pending).to.equal(5);
    fail = false;
    await recorder.stop();
    expect(batches).to.deep.equal([2, 2, 1]);
    expect(recorder.pending).to.equal(0);
  });
});
