import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { linkedSignalFetch } from '../../../src/upstream/transports.js';

describe("linkedSignalFetch (the pool HTTP transports' fetch)", () => {
  let server: http.Server;
  let base: string;
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/hang') return; // never answers
      if (req.url === '/slow') {
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 50);
        return;
      }
      if (req.url === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('data: {}\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('leaves no listener on the long-lived signal after JSON and event-stream answers', async () => {
    const outer = new AbortController();
    for (let i = 0; i < 300; i++) {
      const res = await linkedSignalFetch(`${base}/${i % 3 === 0 ? 'sse' : 'json'}`, { signal: outer.signal });
      await res.text();
    }
    expect(getEventListeners(outer.signal, 'abort')).to.have.length(0);
  });

  it('prints no MaxListenersExceededWarning with 32 requests in flight on one long-lived signal', async () => {
    const outer = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      await Promise.all(
        Array.from({ length: 32 }, () => linkedSignalFetch(`${base}/slow`, { signal: outer.signal }).then((r) => r.text())),
      );
      await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).to.have.length(0);
    expect(getEventListeners(outer.signal, 'abort')).to.have.length(0);
  });

  it('still aborts a request in flight when the long-lived signal aborts', async () => {
    const outer = new AbortController();
    const pending = linkedSignalFetch(`${base}/hang`, { signal: outer.signal }).then(
      () => 'answered',
      (err: Error) => err.name,
    );
    setTimeout(() => outer.abort(), 50);
    expect(await pending).to.equal('AbortError');
    expect(getEventListeners(outer.signal, 'abort')).to.have.length(0);
  });
});
