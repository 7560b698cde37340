import { expect } from 'chai';
import { SessionStore } from '../../src/mcp/sessions.js';
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

describe('call recorder', () => {
  const logger = createLogger(loadConfig({ TOOLGATE_LOG_LEVEL: 'silent' }));
  const record = (n: number): CallRecord => ({
    occurred_at: new Date(),
    endpoint: 'bundle',
    bundle_id: null,
    server_id: null,
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
        if (fail) throw new Error('database down');
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
