import { expect } from 'chai';
import type { CallRecord, CallRecordSink } from '../../../src/domain/call-records.js';
import { createLogger } from '../../../src/logger.js';
import { CallRecorder } from '../../../src/mcp/call-recorder.js';

const silent = createLogger({ logLevel: 'silent' });

function record(tool: string): CallRecord {
  return {
    occurred_at: new Date('2026-11-23T10:00:00Z'),
    endpoint: 'bundle',
    bundle_id: null,
    server_id: null,
    server_name: null,
    tool_id: null,
    tool_name: tool,
    user_id: null,
    api_key_id: null,
    oauth_client_id: null,
    status: 'ok',
    latency_ms: 1,
    error: null,
  };
}

/** A sink like the database: refuses a whole batch holding a `poison` record (a data error). */
class FakeSink implements CallRecordSink {
  readonly written: string[] = [];
  unreachable = false;
  /** Fails every write as a full disk does (PostgreSQL 53100; the embedded database's ENOSPC). */
  diskFull: { code: string; message: string } | undefined;
  attempts = 0;
  async insertMany(records: readonly CallRecord[]): Promise<void> {
    this.attempts += 1;
    if (this.diskFull) throw Object.assign(new Error(this.diskFull.message), { code: this.diskFull.code });
    if (this.unreachable) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    if (records.some((r) => r.tool_name.startsWith('poison'))) throw Object.assign(new Error('invalid input syntax'), { code: '22P02' });
    this.written.push(...records.map((r) => r.tool_name));
  }
}

describe('CallRecorder', () => {
  it('drops only the records the database refuses; the rest of the batch is written', async () => {
    const sink = new FakeSink();
    const recorder = new CallRecorder(sink, silent, { batchSize: 100, flushIntervalMs: 60_000 });
    const names = Array.from({ length: 20 }, (_, i) => (i === 3 || i === 17 ? `poison-${i}` : `ok-${i}`));
    names.forEach((n) => recorder.record(record(n)));
    await recorder.flush();
    expect(sink.written.sort()).to.deep.equal(names.filter((n) => n.startsWith('ok')).sort());
    expect(recorder.pending).to.equal(0);
    // Later records are not blocked by the refused ones.
    recorder.record(record('later'));
    await recorder.flush();
    expect(sink.written).to.include('later');
    await recorder.stop();
  });

  it('under load writes full batches only: what arrives during a write waits for the next full batch or the timer', async () => {
    const batches: number[] = [];
    let release: () => void = () => undefined;
    const sink: CallRecordSink = {
      insertMany: async (records) => {
        batches.push(records.length);
        await new Promise<void>((resolve) => (release = resolve));
      },
    };
    const recorder = new CallRecorder(sink, silent, { batchSize: 10, flushIntervalMs: 60_000 });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 10; i++) recorder.record(record(`a${i}`));
    await settle();
    expect(batches).to.deep.equal([10]); // a full batch goes at once
    for (let i = 0; i < 4; i++) recorder.record(record(`b${i}`));
    release();
    await settle();
    expect(batches).to.deep.equal([10]); // not a batch of 4 right behind it
    expect(recorder.pending).to.equal(4);
    for (let i = 0; i < 13; i++) recorder.record(record(`c${i}`));
    await settle();
    expect(batches).to.deep.equal([10, 10]);
    release();
    await settle();
    expect(batches).to.deep.equal([10, 10]); // 7 left: not a full batch
    expect(recorder.pending).to.equal(7);
    const flushed = recorder.flush(); // the timer's flush, or stop: everything
    await settle();
    expect(batches).to.deep.equal([10, 10, 7]);
    release();
    await flushed;
    expect(recorder.pending).to.equal(0);
    void recorder.stop();
  });

  it('keeps every record while the database is unreachable and writes them once it is back', async () => {
    const sink = new FakeSink();
    const recorder = new CallRecorder(sink, silent, { batchSize: 100, flushIntervalMs: 60_000 });
    sink.unreachable = true;
    ['a', 'b', 'c'].forEach((n) => recorder.record(record(n)));
    await recorder.flush();
    expect(recorder.pending).to.equal(3);
    expect(sink.attempts).to.equal(1); // an outage is not bisected record by record
    sink.unreachable = false;
    await recorder.flush();
    expect(recorder.pending).to.equal(0);
    expect(sink.written).to.deep.equal(['a', 'b', 'c']);
    await recorder.stop();
  });

  for (const full of [
    { code: '53100', message: 'could not extend file "base/16384/16410": No space left on device' },
    { code: 'ENOSPC', message: 'ENOSPC: no space left on device, write' },
  ]) {
    it(`keeps every record while the disk is full (${full.code}), says why, retries with backoff and recovers`, async () => {
      const sink = new FakeSink();
      const lines: Record<string, unknown>[] = [];
      const logger = createLogger({ logLevel: 'info' }, { write: (l: string) => lines.push(JSON.parse(l)) > 0 } as never);
      const recorder = new CallRecorder(sink, logger, { batchSize: 100, flushIntervalMs: 60_000 });
      sink.diskFull = full;
      for (let i = 0; i < 40; i++) recorder.record(record(`r${i}`));
      await recorder.flush();
      // Nothing dropped, the batch is not bisected as if its content were wrong, and the cause is said.
      expect(recorder.pending).to.equal(40);
      expect(sink.attempts).to.equal(1);
      expect(recorder.health()).to.include({ ok: false, reason: 'database out of disk space', pending: 40 });
      const warning = lines.find((l) => String(l.msg).startsWith('call records not written yet'));
      expect(warning).to.include({ reason: 'database out of disk space' });
      await recorder.flush();
      expect(lines.filter((l) => String(l.msg).startsWith('call records not written yet'))).to.have.length(1);
      sink.diskFull = undefined;
      await recorder.flush();
      expect(recorder.pending).to.equal(0);
      expect(sink.written).to.have.length(40);
      expect(recorder.health()).to.deep.equal({ ok: true, pending: 0 });
      expect(lines.some((l) => l.msg === 'call records are written again')).to.equal(true);
      await recorder.stop();
    });
  }
});
