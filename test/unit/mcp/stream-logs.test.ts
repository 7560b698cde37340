import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { EventEmitter } from 'node:events';
import { MAX_POST_STREAMS, PostStreams, primingEvent, SSE_RETRY_MS } from '../../../src/mcp/stream-logs.js';

/** A stand-in for a resumed response: what was written, and whether it ended. */
function sink(): ServerResponse & { text: string; ended: boolean } {
  const res = Object.assign(new EventEmitter(), {
    text: '',
    ended: false,
    writableEnded: false,
    write(chunk: string) {
      res.text += chunk;
      return true;
    },
    end() {
      res.ended = true;
      res.writableEnded = true;
    },
  });
  return res as never;
}

describe('PostStreams (resumable POST streams of a session)', () => {
  it('primes with an id and retry:, numbers events p<stream>.<n>, and resumes after the named event', () => {
    const streams = new PostStreams();
    const log = streams.open();
    expect(primingEvent(log.primingId)).to.equal(`id: p1.0\nretry: ${SSE_RETRY_MS}\ndata:\n\n`);
    log.append('{"a":1}');
    log.append('{"a":2}');
    const found = streams.find('p1.1')!;
    const res = sink();
    found.log.resume(res, found.afterSeq);
    expect(res.text).to.equal('id: p1.2\nevent: message\ndata: {"a":2}\n\n');
    // Still running: later events follow, and the end of the stream ends the resumption.
    log.append('{"id":5}');
    expect(res.text).to.contain('id: p1.3');
    expect(res.ended).to.equal(false);
    log.end();
    expect(res.ended).to.equal(true);
  });

  it('a finished stream resumes and ends at once; unknown or malformed ids find nothing', () => {
    const streams = new PostStreams();
    const log = streams.open();
    log.append('x');
    log.end();
    const res = sink();
    const found = streams.find('p1.0')!;
    found.log.resume(res, found.afterSeq);
    expect(res.text).to.contain('data: x');
    expect(res.ended).to.equal(true);
    expect(streams.find('p2.0')).to.equal(undefined);
    expect(streams.find('7')).to.equal(undefined);
    expect(PostStreams.names('p1.2')).to.equal(true);
    expect(PostStreams.names('12')).to.equal(false);
  });

  it(`keeps at most ${MAX_POST_STREAMS} streams, finished ones giving way first`, () => {
    const streams = new PostStreams();
    const running = streams.open();
    for (let i = 0; i < MAX_POST_STREAMS + 5; i++) streams.open().end();
    expect(streams.find(running.primingId), 'the running stream is kept').to.not.equal(undefined);
    expect(streams.find('p2.0'), 'the oldest finished one is gone').to.equal(undefined);
    expect(streams.find(`p${MAX_POST_STREAMS + 6}.0`)).to.not.equal(undefined);
  });

  it('bounds the bytes a session keeps', () => {
    const streams = new PostStreams();
    const big = 'x'.repeat(300 * 1024);
    const first = streams.open();
    first.append(big);
    first.end();
    for (let i = 0; i < 4; i++) {
      const log = streams.open();
      log.append(big);
      log.end();
    }
    expect(streams.find('p1.0'), 'the oldest gave way to the byte bound').to.equal(undefined);
    expect(streams.find('p5.0')).to.not.equal(undefined);
  });
});
