import http from 'node:http';
import { expect } from 'chai';
import { mcpFetch, RawSession } from '../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../helpers/test-upstreams.js';

/** A POST with full control over headers and a body of any size. */
function post(url: string, headers: Record<string, string>, body: string | Buffer) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ACCEPT = 'application/json, text/event-stream';
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

/**
 * The Streamable HTTP paths are served ahead of Koa: they must refuse everything the Koa chain
 * refused, in the same shapes, and keep its headers.
 */
describe('MCP fast path: the rules Koa applied still hold', () => {
  let t: TestServer;
  let url: string;

  before(async () => {
    t = await startTestServer({ start: { upstreams: new TestUpstreams() } });
    const { tools } = putFixtureServer(t.server.services.catalog, 'fast', [{ name: 'echo' }]);
    const created = await t.owner.post('/api/v1/bundles', { name: 'fast', tools: [{ tool_id: tools.echo!.id }] });
    url = `${t.url}/mcp/bundle/${created.body.bundle_key}`;
  });
  after(() => t.stop());

  it('serves a call with the request id, nosniff and no-store headers', async () => {
    const session = new RawSession(url, '2025-11-25');
    await session.initialize();
    const answer = await session.call('echo', { text: 'hi' });
    expect(answer.result.isError ?? false).to.equal(false);
    const reply = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 9, method: 'ping' }, headers: { 'x-request-id': 'fast-1' } });
    expect(reply.status).to.equal(200);
    expect(reply.headers.get('x-request-id')).to.equal('fast-1');
    expect(reply.headers.get('x-content-type-options')).to.equal('nosniff');
  });

  it('refuses a foreign Origin (403) and a rebound Host (403)', async () => {
    const origin = await post(url, { 'content-type': 'application/json', accept: ACCEPT, origin: 'https://evil.example' }, PING);
    expect(origin.status).to.equal(403);
    expect(JSON.parse(origin.text)).to.deep.include({ jsonrpc: '2.0', id: null });
    const host = await post(url, { 'content-type': 'application/json', accept: ACCEPT, host: 'evil.example' }, PING);
    expect(host.status).to.equal(403);
  });

  it('refuses a wrong content type (415) and an Accept without event streams (406)', async () => {
    const type = await post(url, { 'content-type': 'text/plain', accept: ACCEPT }, PING);
    expect(type.status).to.equal(415);
    expect(JSON.parse(type.text).error.code).to.equal(-32600);
    const accept = await post(url, { 'content-type': 'application/json', accept: 'application/json' }, PING);
    expect(accept.status).to.equal(406);
  });

  it('refuses a body over the limit (413) without reading it, declared or streamed', async () => {
    const big = Buffer.alloc(t.config.bodyLimitBytes + 1, 0x20);
    const declared = await post(url, { 'content-type': 'application/json', accept: ACCEPT }, big);
    expect(declared.status).to.equal(413);
    expect(JSON.parse(declared.text).error.code).to.equal(-32600);
    const chunked = await post(url, { 'content-type': 'application/json', accept: ACCEPT, 'transfer-encoding': 'chunked' }, big);
    expect(chunked.status).to.equal(413);
  });

  it('refuses an unknown bundle key (404) and the gateway without a key (401)', async () => {
    const unknown = await post(`${t.url}/mcp/bundle/not-a-key`, { 'content-type': 'application/json', accept: ACCEPT }, PING);
    expect(unknown.status).to.equal(404);
    expect(JSON.parse(unknown.text).error).to.deep.equal({ code: -32005, message: 'Bundle not found' });
    const gateway = await post(`${t.url}/mcp/gateway`, { 'content-type': 'application/json', accept: ACCEPT }, PING);
    expect(gateway.status).to.equal(401);
    expect(gateway.headers['www-authenticate']).to.match(/^Bearer/);
    const wrong = await post(
      `${t.url}/mcp/gateway`,
      { 'content-type': 'application/json', accept: ACCEPT, authorization: 'Bearer tg_nope' },
      PING,
    );
    expect(wrong.status).to.equal(401);
  });

  it('answers a parse error as JSON-RPC -32700, and other paths still reach Koa', async () => {
    const broken = await post(url, { 'content-type': 'application/json', accept: ACCEPT }, '{"jsonrpc":');
    expect(broken.status).to.equal(400);
    expect(JSON.parse(broken.text).error.code).to.equal(-32700);
    const info = await fetch(`${url}/info`);
    expect(info.status).to.equal(200);
    expect(info.headers.get('x-request-id')).to.be.a('string');
  });
});
