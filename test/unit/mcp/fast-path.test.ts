import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createMcpFastPath } from '../../../src/app.js';
import { createLogger } from '../../../src/logger.js';
import type { McpAccess, McpRoute } from '../../../src/mcp/transport/route.js';

/** A fake route table: the paths the real endpoints claim for the fast path. */
const ROUTE: McpRoute = {
  endpoint: 'bundle',
  resolve: () => ({ refusal: { status: 404, code: -32001, message: 'x' } }),
  methodNotAllowed: () => undefined,
};
const claims = (path: string): McpRoute | undefined =>
  /^\/mcp\/bundle\/[^/]+\/?$/.test(path) || path === '/mcp/gateway' ? ROUTE : undefined;

describe('MCP fast path ahead of Koa', () => {
  let server: http.Server;
  let base: string;
  let stopping = false;
  const lines: Record<string, unknown>[] = [];
  const seen: { path: string; requestId: string }[] = [];

  before(async () => {
    const logger = createLogger(
      { logLevel: 'info', logFormat: 'json' },
      new Writable({
        write: (c: Buffer, _e, cb) => {
          lines.push(JSON.parse(c.toString('utf8')) as Record<string, unknown>);
          cb();
        },
      }),
    );
    const fast = createMcpFastPath({
      logger,
      isStopping: () => stopping,
      route: claims,
      serve: (req, res, _route, requestId, access: McpAccess) => {
        seen.push({ path: req.url ?? '', requestId });
        access.method = 'tools/call';
        access.bundle = 'b1';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
        return Promise.resolve();
      },
    });
    server = http.createServer((req, res) => {
      if (fast(req, res)) return;
      res.writeHead(299);
      res.end('koa');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the Streamable HTTP paths (query strings ignored) and leaves every other path to Koa', async () => {
    for (const p of ['/mcp/bundle/k1', '/mcp/bundle/k1/', '/mcp/bundle/k1?x=1', '/mcp/gateway']) {
      const res = await fetch(base + p, { method: 'POST', body: '{}' });
      expect(res.status, p).to.equal(200);
    }
    for (const p of ['/mcp/bundle/k1/info', '/mcp/bundle/k1/sse', '/mcp/gateway/messages?sessionId=1', '/api/v1/bundles', '/mcp', '/']) {
      const res = await fetch(base + p, { method: 'POST', body: '{}' });
      expect(res.status, p).to.equal(299);
      expect(await res.text()).to.equal('koa');
    }
  });

  it('sets the request id (a valid incoming one is kept), nosniff and no-store, and writes the access line', async () => {
    const from = lines.length;
    const res = await fetch(`${base}/mcp/bundle/k1`, { method: 'POST', body: '{}', headers: { 'x-request-id': 'req-42' } });
    expect(res.headers.get('x-request-id')).to.equal('req-42');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.headers.get('connection')).to.not.equal('close');
    const bad = await fetch(`${base}/mcp/bundle/k1`, { method: 'POST', body: '{}', headers: { 'x-request-id': 'has space' } });
    expect(bad.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    await new Promise((r) => setTimeout(r, 20));
    const access = lines.slice(from).filter((l) => l.msg === 'mcp request');
    expect(access).to.have.length(2);
    expect(access[0]).to.include({ requestId: 'req-42', endpoint: 'bundle', bundle: 'b1', method: 'tools/call', status: 200 });
    expect(access[0]!.ms).to.be.a('number');
    expect(seen.at(-2)!.requestId).to.equal('req-42');
  });

  it('asks clients to close the connection once a stop has begun', async () => {
    stopping = true;
    try {
      const res = await fetch(`${base}/mcp/gateway`, { method: 'POST', body: '{}' });
      expect(res.headers.get('connection')).to.equal('close');
    } finally {
      stopping = false;
    }
  });
});
