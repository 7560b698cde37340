import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-3f9a1c.js"></script></head><body>console</body></html>';
const SCRIPT = `export const app = ${JSON.stringify('x'.repeat(4000))};\n`;

function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-console-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dir, 'assets', 'app-3f9a1c.js'), SCRIPT);
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

const html = { accept: 'text/html,application/xhtml+xml' };

describe('the web console at / (static files)', function () {
  this.timeout(60000);
  let t: TestServer;
  let dir: string;

  before(async () => {
    dir = fakeBuild();
    t = await startTestServer({ start: { consoleDir: dir } });
  });
  after(async () => {
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / with revalidation and the page security headers', async () => {
    const res = await fetch(`${t.url}/`, { headers: html });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).to.equal('no-cache');
    expect(res.headers.get('etag')).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers.get('content-security-policy')).to.include("script-src 'self'").and.include("frame-ancestors 'none'");
    expect(res.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(res.headers.get('x-request-id')).to.be.a('string');
    expect(await res.text()).to.equal(INDEX);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await fetch(`${t.url}/`, { headers: html });
    const etag = first.headers.get('etag')!;
    const res = await fetch(`${t.url}/`, { headers: { ...html, 'if-none-match': etag } });
    expect(res.status).to.equal(304);
    expect(await res.text()).to.equal('');
  });

  it('serves hashed assets as immutable for a year, compressed when the client accepts it', async () => {
    const plain = await fetch(`${t.url}/assets/app-3f9a1c.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).to.equal(200);
    expect(plain.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).to.equal('text/javascript; charset=utf-8');
    expect(plain.headers.get('content-encoding')).to.equal(null);
    expect(await plain.text()).to.equal(SCRIPT);

    // node's fetch decodes br/gzip itself; ask with a raw request to see the encoding on the wire.
    const { request } = await import('node:http');
    const raw = await new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = request(`${t.url}/assets/app-3f9a1c.js`, { headers: { 'accept-encoding': 'gzip, br' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(raw.headers['content-encoding']).to.equal('br');
    expect(raw.headers.vary).to.include('Accept-Encoding');
    expect(raw.body.length).to.be.lessThan(SCRIPT.length / 4);
    expect(zlib.brotliDecompressSync(raw.body).toString()).to.equal(SCRIPT);
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await fetch(`${t.url}/favicon.svg`, { method: 'HEAD' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/svg+xml');
    expect(res.headers.get('content-length')).to.equal(String('<svg xmlns="http://www.w3.org/2000/svg"/>'.length));
    expect(await res.text()).to.equal('');
  });

  it('answers console routes with index.html (SPA fallback) for browser navigations', async () => {
    for (const route of ['/dashboard', '/bundles/8a1f6a52-5f0e-4f5e-9b7e-1c2d3e4f5a6b', '/invitations/accept']) {
      const res = await fetch(`${t.url}${route}?token=abc`, { headers: html });
      expect(res.status, route).to.equal(200);
      expect(await res.text()).to.equal(INDEX);
    }
  });

  it('never shadows the API, the MCP endpoints or the probes', async () => {
    const health = await fetch(`${t.url}/health`, { headers: html });
    expect(health.status).to.equal(200);
    expect(health.headers.get('content-type')).to.include('application/json');
    const ready = await fetch(`${t.url}/ready`, { headers: html });
    expect(ready.headers.get('content-type')).to.include('application/json');
    const api = await fetch(`${t.url}/api/v1/bundles`, { headers: html });
    expect(api.status).to.equal(401);
    expect(api.headers.get('content-type')).to.include('application/json');
    const unknownApi = await fetch(`${t.url}/api/v1/no-such-thing`, { headers: html });
    expect(unknownApi.status).to.equal(404);
    expect(((await unknownApi.json()) as { code: string }).code).to.equal('not_found');
    const mcp = await fetch(`${t.url}/mcp/bundle/nope`, { headers: html });
    expect(mcp.headers.get('content-type')).to.not.include('text/html');
    const apiRoot = await fetch(`${t.url}/api`, { headers: html });
    expect(apiRoot.headers.get('content-type')).to.include('application/json');
  });

  it('does not answer other methods, missing files or non-browser requests to unknown paths', async () => {
    const post = await fetch(`${t.url}/dashboard`, { method: 'POST', headers: html });
    expect(post.headers.get('content-type')).to.include('application/json');
    const missing = await fetch(`${t.url}/assets/gone-123.js`, { headers: html });
    expect(missing.status).to.equal(404);
    const json = await fetch(`${t.url}/dashboard`, { headers: { accept: 'application/json' } });
    expect(json.status).to.equal(404);
    expect(json.headers.get('content-type')).to.include('application/json');
  });

  it('cannot be walked out of its directory', async () => {
    for (const p of ['/../package.json', '/%2e%2e/package.json', '/assets/..%2f..%2fpackage.json']) {
      const res = await fetch(`${t.url}${p}`, { headers: { accept: '*/*' } });
      expect(await res.text()).to.not.include('"name": "toolgate"');
    }
  });
});

describe('the web console without a build', function () {
  this.timeout(60000);
  let t: TestServer;
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-console-empty-'));
    t = await startTestServer({ start: { consoleDir: dir } });
  });
  after(async () => {
    await t?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 with how to build it, and the API still works', async () => {
    const res = await fetch(`${t.url}/`, { headers: html });
    expect(res.status).to.equal(503);
    expect(await res.text()).to.include('npm run build:web');
    const health = await fetch(`${t.url}/health`);
    expect(health.status).to.equal(200);
  });
});
