import { expect } from 'chai';
import { EventLog, PROVISIONAL_IDLE_MS, REPLAY_MAX_BYTES, REPLAY_MAX_EVENTS, SessionStore } from '../../src/mcp/sessions.js';
import { CallRecorder } from '../../src/mcp/call-recorder.js';
import type { CallRecord, CallRecordSink } from '../../src/domain/call-records.js';
import { createLogger } from '../../src/logger.js';
import { loadConfig } from '../../src/config.js';

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
