import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../../../helpers/contract.js';
import { createUser } from '../../../helpers/identity.js';
import { seedSecret } from '../../../helpers/secrets.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { startFixtureHttp, waitConnected, type ChildServer } from '../../../helpers/upstreams.js';

const TOKEN = seedSecret('registry-token-3e9d1c77');
const API_TOKEN = seedSecret('files-api-token-55a0c2');

/** A registry on loopback serving the fixture page and its entries, recording each request. */
async function startRegistry(mcpUrl: string): Promise<{ url: string; requests: http.IncomingMessage[]; close(): Promise<void> }> {
  const page = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'test/fixtures/mcp-registry/servers-page.json'), 'utf8').replace('{MCP_URL}', mcpUrl),
  );
  const requests: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req);
    const url = new URL(req.url ?? '/', 'http://registry');
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/v0.1/servers') return json(200, page);
    const m = /^\/v0\.1\/servers\/([^/]+)\/versions\/([^/]+)$/.exec(url.pathname);
    const entry = m && page.servers.find((e: any) => e.server.name === decodeURIComponent(m[1]!));
    if (entry && (m[2] === 'latest' || decodeURIComponent(m[2]!) === entry.server.version)) return json(200, entry);
    return json(404, { error: 'Server not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('Registry import (GET /api/v1/registry/servers, POST /api/v1/registry/import)', () => {
  let t: TestServer;
  let registry: Awaited<ReturnType<typeof startRegistry>>;
  let mcp: ChildServer;

  before(async function () {
    this.timeout(60_000);
    mcp = await startFixtureHttp('http');
    registry = await startRegistry(mcp.url);
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    const set = await t.owner.put('/api/v1/settings/general', { registry_url: registry.url, registry_token: TOKEN });
    expect(set.status).to.equal(200);
  });
  after(async () => {
    await t?.stop();
    await registry?.close();
    await mcp?.stop();
  });

  it('browses the configured registry with its token, lists import options, and caches the listing', async () => {
    const res = await t.owner.get('/api/v1/registry/servers?search=example');
    expect(res.status).to.equal(200);
    expect(res.body.registry_url).to.equal(registry.url);
    expect(res.body.next_cursor).to.equal('io.example/weather:2.0.0');
    const files = res.body.servers.find((e: any) => e.server.name === 'io.example/files');
    expect(files.options.map((o: any) => [o.id, o.transport, o.summary, o.supported])).to.deep.equal([
      ['package:0', 'stdio', 'npx -y @example/files-mcp@1.2.0', true],
      ['package:1', 'stdio', 'uvx example-files-mcp==0.3.1', true],
      ['package:2', 'stdio', 'oci ghcr.io/example/files:1.2.0', false],
    ]);
    expect(files.options[0].inputs).to.deep.equal([
      { name: 'API_TOKEN', kind: 'env', required: true, secret: true, description: 'Token of the files service', default: null },
      { name: 'LOG_LEVEL', kind: 'env', required: false, secret: false, description: 'Log level', default: 'info' },
      { name: 'root', kind: 'argument', required: true, secret: false, description: 'The root folder', default: null },
    ]);
    const first = registry.requests.at(-1)!;
    expect(first.url).to.equal('/v0.1/servers?version=latest&limit=30&search=example');
    expect(first.headers.authorization).to.equal(`Bearer ${TOKEN}`);
    const count = registry.requests.length;
    expect((await t.owner.get('/api/v1/registry/servers?search=example')).status).to.equal(200);
    expect(registry.requests.length).to.equal(count);
  });

  it('adds a remote as a Streamable HTTP server with its secret header, which connects', async function () {
    this.timeout(60_000);
    const res = await t.owner.post('/api/v1/registry/import', {
      server: 'io.example/weather',
      option: 'remote:0',
      values: { 'X-Api-Key': 'weather-key-value' },
    });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ name: 'weather', transport: 'streamable_http', url: mcp.url, description: 'Weather forecasts' });
    expect(res.body.header_names).to.deep.equal(['X-Api-Key']);
    expect(res.text).to.not.include('weather-key-value');
    await waitConnected(t.owner, res.body.id, 1, 60_000);
  });

  it('adds an npm package as a stdio server on npx: arguments, env, and secret env sealed', async () => {
    const missing = await t.owner.post('/api/v1/registry/import', {
      server: 'io.example/files',
      option: 'package:0',
      values: { root: '/data' },
    });
    expect(missing.status).to.equal(422);
    expect(missing.body.detail.map((d: any) => d.loc)).to.deep.equal([['body', 'values', 'API_TOKEN']]);
    const res = await t.owner.post('/api/v1/registry/import', {
      server: 'io.example/files',
      option: 'package:0',
      values: { API_TOKEN, root: '/data' },
      enabled: false,
    });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ name: 'files', transport: 'stdio', command: 'npx', enabled: false });
    expect(res.body.args).to.deep.equal(['-y', '@example/files-mcp@1.2.0', '/data']);
    expect(res.body.env).to.deep.equal({ LOG_LEVEL: 'info' });
    expect(res.body.secret_env_keys).to.deep.equal(['API_TOKEN']);
    expect(res.text).to.not.include(API_TOKEN);
    // Other people's code: sandboxed, asking an admin for the package registry (npx downloads the package).
    expect(res.body.sandboxed).to.equal(true);
    expect(res.body.network).to.deep.equal({ approved_hosts: [], requested_hosts: ['registry.npmjs.org'] });
  });

  it('adds a PyPI package on uvx under another name, and refuses an OCI package', async () => {
    const res = await t.owner.post('/api/v1/registry/import', {
      server: 'io.example/files',
      version: '1.2.0',
      option: 'package:1',
      name: 'files-py',
      values: { API_TOKEN },
      enabled: false,
    });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ name: 'files-py', command: 'uvx', sandboxed: true });
    expect(res.body.network.requested_hosts).to.deep.equal(['pypi.org', 'files.pythonhosted.org']);
    expect(res.body.args).to.deep.equal(['example-files-mcp==0.3.1']);
    const oci = await t.owner.post('/api/v1/registry/import', { server: 'io.example/files', option: 'package:2', name: 'files-oci' });
    expect(oci.status).to.equal(422);
    expect(oci.body.detail[0].loc).to.deep.equal(['body', 'option']);
  });

  it('answers 404 for an entry the registry does not have, 409 for a taken name, 403 for members', async () => {
    expect((await t.owner.post('/api/v1/registry/import', { server: 'io.example/nope', option: 'remote:0' })).status).to.equal(404);
    const taken = await t.owner.post('/api/v1/registry/import', {
      server: 'io.example/files',
      option: 'package:1',
      name: 'files-py',
      values: { API_TOKEN },
    });
    expect(taken.status).to.equal(409);
    const member = await createUser(t, 'member');
    expect((await member.client.get('/api/v1/registry/servers')).status).to.equal(403);
  });

  it('answers 502 when the registry is refused by the outbound-address policy', async () => {
    const other = await startTestServer();
    try {
      // Without the loopback allow-list the registry URL cannot even be saved: set it with the allow-list, then drop it.
      await other.owner.put('/api/v1/settings/general', { outbound_allowlist: ['127.0.0.1:*'] });
      await other.owner.put('/api/v1/settings/general', { registry_url: registry.url });
      await other.owner.put('/api/v1/settings/general', { outbound_allowlist: [] });
      const res = await other.owner.get('/api/v1/registry/servers');
      expect(res.status).to.equal(502);
      expect(res.body.detail).to.include('outbound-address policy');
    } finally {
      await other.stop();
    }
  });
});
