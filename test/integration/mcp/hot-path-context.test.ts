import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const src = (file: string) => JSON.stringify(fileURLToPath(new URL(`../../../src/${file}`, import.meta.url)));

/**
 * The script of a process of its own (nothing else in it enables an AsyncLocalStorage): an HTTP
 * MCP upstream that holds its tools/call answer, the production upstream pool connected to it,
 * one tools/call through the pool, and a probe of V8's promise hooks while the call is in flight.
 * With an AsyncLocalStorage enabled, each promise continuation gets an async id of its own; with
 * the hooks off, consecutive awaits share one.
 */
const SCRIPT = `
import http from 'node:http';
import { executionAsyncId } from 'node:async_hooks';
import { createLogger } from ${src('logger.ts')};
import { UpstreamPool } from ${src('upstream/upstream-pool.ts')};

const hooksOn = async () => { await null; const first = executionAsyncId(); await null; return executionAsyncId() !== first; };
let arrived, release;
const reached = new Promise((r) => (arrived = r));
const released = new Promise((r) => (release = r));
const upstream = http.createServer((req, res) => {
  if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (msg.id === undefined) return res.writeHead(202).end();
    let result = {};
    if (msg.method === 'initialize') result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'u', version: '1' } };
    if (msg.method === 'tools/call') { arrived(); await released; result = { content: [{ type: 'text', text: 'done' }] }; }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  });
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));
const pool = new UpstreamPool(
  { logger: createLogger({ logLevel: 'silent' }), clientInfo: { name: 't', version: '0' }, connectTimeoutMs: 10000, retryBaseMs: 50, retryMaxMs: 200, maxFastRetries: 3 },
  { onConnected: () => undefined, onStateChange: () => undefined, onListChanged: () => undefined },
);
await pool.upsert({ id: 'u', name: 'u', callTimeoutMs: 10000, healthCheckIntervalMs: 60000, connection: { transport: 'streamable_http', url: 'http://127.0.0.1:' + upstream.address().port + '/mcp', headers: {} } });
for (let i = 0; i < 200 && pool.state('u')?.status !== 'connected'; i++) await new Promise((r) => setTimeout(r, 25));
const before = await hooksOn();
const call = pool.callTool('u', 'anything', {});
await reached;
const during = await hooksOn();
release();
const result = await call;
console.log(JSON.stringify({ status: pool.state('u')?.status, before, during, text: result.content[0].text }));
await pool.close();
upstream.close();
`;

describe('the tools/call hot path runs without AsyncLocalStorage (an async context costs every call)', function () {
  this.timeout(30000);

  it('a tools/call through the upstream pool (Streamable HTTP) leaves promise hooks off while it is in flight', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { encoding: 'utf8' });
    const seen = JSON.parse(out.trim().split('\n').pop()!) as { status: string; before: boolean; during: boolean; text: string };
    expect(seen.status).to.equal('connected');
    expect(seen.text).to.equal('done');
    expect(seen.before, 'promise hooks were on before the call').to.equal(false);
    expect(seen.during, 'promise hooks were on while the call was in flight').to.equal(false);
  });
});
