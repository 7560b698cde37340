import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { ConflictError } from '../../../src/errors.js';
import { sseStream, type SseEvent } from '../../../src/http/handler-types.js';
import { sendEventStream } from '../../../src/http/send-event-stream.js';

/** A loopback Koa app that answers every request with the events of `make`. */
async function serve(make: () => AsyncIterable<SseEvent>, logged: unknown[]): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.use(async (ctx) => {
    ctx.state.requestId = 'req-1';
    const controller = new AbortController();
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) controller.abort();
    });
    await sendEventStream(ctx, 200, { 'X-Test': 'yes' }, sseStream(make()), controller.signal, {
      error: (obj: unknown) => logged.push(obj),
    });
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Reads the response body chunk by chunk; `until` stops reading once the text so far matches. */
function read(url: string, until?: RegExp): Promise<{ res: http.IncomingMessage; text: string; req: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
        if (until?.test(text)) resolve({ res, text, req });
      });
      res.on('end', () => resolve({ res, text, req }));
    });
    req.on('error', reject);
  });
}

describe('sendEventStream (SSE responses of the REST dispatcher)', () => {
  const logged: unknown[] = [];
  afterEach(() => (logged.length = 0));

  it('sends headers and each event before the next is produced', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const server = await serve(async function* () {
      yield { event: 'progress', data: { phase: 'one' } };
      await released; // the second event does not exist until the client has seen the first
      yield { event: 'completion', data: { done: true } };
    }, logged);
    try {
      const first = await read(server.url, /\n\n/);
      expect(first.res.statusCode).to.equal(200);
      expect(first.res.headers['content-type']).to.equal('text/event-stream; charset=utf-8');
      expect(first.res.headers['x-accel-buffering']).to.equal('no');
      expect(first.res.headers['x-test']).to.equal('yes');
      expect(first.text).to.equal('event: progress\ndata: {"phase":"one"}\n\n');
      const rest = new Promise<string>((resolve) => {
        let text = '';
        first.res.on('data', (d: string) => (text += d));
        first.res.on('end', () => resolve(text));
      });
      release();
      expect(await rest).to.equal('event: completion\ndata: {"done":true}\n\n');
    } finally {
      await server.close();
    }
  });

  it('ends a stream whose events throw with an error event: the domain code, or internal_error without the cause', async () => {
    const server = await serve(async function* () {
      yield { event: 'token', data: { text: 'a' } };
      throw new ConflictError('A skill named x exists', 'skill_name_taken');
    }, logged);
    const secretServer = await serve(async function* () {
      yield { event: 'token', data: { text: 'a' } };
      throw new Error('db password hunter2 in a stack');
    }, logged);
    try {
      const domain = await read(server.url);
      expect(domain.text).to.equal(
        'event: token\ndata: {"text":"a"}\n\nevent: error\ndata: {"code":"skill_name_taken","detail":"A skill named x exists"}\n\n',
      );
      expect(logged).to.have.length(0);
      const internal = await read(secretServer.url);
      expect(internal.text).to.include('event: error\ndata: {"code":"internal_error","detail":"Internal server error"}\n\n');
      expect(internal.text).to.not.include('hunter2');
      expect(logged).to.have.length(1);
    } finally {
      await server.close();
      await secretServer.close();
    }
  });

  it('stops pulling and closes the events when the client goes away', async () => {
    let closed!: () => void;
    const finallyRan = new Promise<void>((resolve) => (closed = resolve));
    let produced = 0;
    const server = await serve(async function* () {
      try {
        for (;;) {
          produced += 1;
          yield { event: 'token', data: { text: String(produced) } };
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        closed();
      }
    }, logged);
    try {
      const { req } = await read(server.url, /\n\n/);
      req.destroy();
      // Resolves only when the dispatcher closes the generator (`return()`); a leak would hang here.
      await finallyRan;
      expect(produced).to.be.greaterThan(0);
    } finally {
      await server.close();
    }
  });
});
