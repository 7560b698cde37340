import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { ROOT } from '../../../helpers/contract.js';
import { RawSession } from '../../../helpers/mcp-http.js';
import { seedSecret } from '../../../helpers/secrets.js';
import { capturedLogs, LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { waitConnected } from '../../../helpers/upstreams.js';

const API_KEY = seedSecret('petstore-api-key-91c2f0');
const PASSWORD = seedSecret('petstore-password-4be7a1');
const QUERY_KEY = seedSecret('petstore-query-key-08d3e5');
const fixture = (name: string) => fs.readFileSync(path.join(ROOT, 'test/fixtures/openapi', name), 'utf8');

interface Seen {
  method: string;
  rawPath: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A petstore-like REST API on loopback that records what it received. */
async function startPetstore(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const rawPath = req.url ?? '';
      seen.push({ method: req.method ?? '', rawPath, headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const pathname = rawPath.split('?')[0]!;
      if (pathname === '/openapi.yaml') {
        res.writeHead(200, { 'content-type': 'application/yaml' });
        res.end(fixture('petstore-3.0.yaml'));
      } else if (pathname === '/api/pets' && req.method === 'GET') json(200, [{ id: '1', name: 'Rex' }]);
      else if (pathname === '/api/pets' && req.method === 'POST') json(201, { id: '2', ...JSON.parse(body) });
      else if (pathname === '/api/pets/1' || pathname === '/v31/pets/1') json(200, { id: '1', name: 'Rex', tag: null });
      else if (pathname === '/v31/pets/1/name') json(200, 'Rex');
      else if (pathname === '/api/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(5 * 1024 * 1024));
      } else json(404, { error: 'no pet' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('OpenAPI servers (POST /api/v1/servers/openapi)', () => {
  let t: TestServer;
  let api: Awaited<ReturnType<typeof startPetstore>>;
  let session: RawSession;
  let last: (pathPrefix: string) => Seen;

  before(async function () {
    this.timeout(120_000);
    api = await startPetstore();
    last = (prefix) => [...api.seen].reverse().find((s) => s.rawPath.startsWith(prefix))!;
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
  });
  after(async () => {
    await t?.stop();
    await api?.close();
  });

  it('registers a 3.0 document fetched from a URL (header credential) and a 3.1 upload (basic credential); tools are listed per operation', async function () {
    this.timeout(90_000);
    const v30 = await t.owner.post('/api/v1/servers/openapi', {
      name: 'petstore30',
      document_url: `${api.url}/openapi.yaml`,
      credential: { type: 'header', name: 'X-Api-Key', value: API_KEY },
    });
    expect(v30.status).to.equal(201);
    expect(v30.body).to.include({ transport: 'stdio', command: 'toolgate:openapi-bridge' });
    expect(v30.body.env).to.deep.equal({ TOOLGATE_OPENAPI_BASE_URL: `${api.url}/api` });
    expect(v30.body.secret_env_keys).to.deep.equal(['TOOLGATE_OPENAPI_AUTH']);
    expect(v30.text).to.not.include(API_KEY);
    const v31 = await t.owner.post('/api/v1/servers/openapi', {
      name: 'petstore31',
      document: fixture('petstore-3.1.json'),
      base_url: `${api.url}/v31`,
      credential: { type: 'basic', username: 'toolgate', password: PASSWORD },
    });
    expect(v31.status).to.equal(201);
    await waitConnected(t.owner, v30.body.id, 5, 60_000);
    await waitConnected(t.owner, v31.body.id, 2, 60_000);
    const tools = (await t.owner.get(`/api/v1/servers/${v30.body.id}/tools?page_size=100`)).body.items;
    expect(tools.map((x: any) => x.name).sort()).to.deep.equal(['bigResponse', 'createPet', 'deletePet', 'getPet', 'listPets']);
    const getPet = tools.find((x: any) => x.name === 'getPet');
    expect(getPet.input_schema.required).to.deep.equal(['petId']);
    expect(getPet.output_schema.type).to.equal('object');
  });

  it('serves the tools in a bundle with overrides: structured results, pinned arguments, the credential on each request', async function () {
    this.timeout(60_000);
    const all = (await t.owner.get('/api/v1/tools?page_size=100')).body.items as { id: string; name: string; server_name: string }[];
    const id = (server: string, name: string) => all.find((x) => x.server_name === server && x.name === name)!.id;
    const bundle = await t.owner.post('/api/v1/bundles', {
      name: 'Pets',
      tools: [
        { tool_id: id('petstore30', 'getPet'), override: { name: 'find_pet', pinned: { 'X-Request-Tag': 'toolgate' } } },
        { tool_id: id('petstore30', 'listPets') },
        { tool_id: id('petstore30', 'createPet') },
        { tool_id: id('petstore30', 'bigResponse') },
        { tool_id: id('petstore31', 'getPetName') },
      ],
    });
    expect(bundle.status).to.equal(201);
    session = new RawSession(`${t.url}/mcp/bundle/${bundle.body.bundle_key}`, '2025-06-18');
    await session.initialize();

    const found = await session.call('find_pet', { petId: '1' });
    expect(found.result.isError ?? false).to.equal(false);
    expect(found.result.structuredContent).to.deep.equal({ id: '1', name: 'Rex', tag: null });
    const seen = last('/api/pets/1');
    expect(seen.headers['x-api-key']).to.equal(API_KEY);
    expect(seen.headers['x-request-tag']).to.equal('toolgate');

    const listedPets = await session.call('listPets', { limit: 2 });
    expect(listedPets.result.structuredContent).to.deep.equal({ result: [{ id: '1', name: 'Rex' }] });
    expect(last('/api/pets?').rawPath).to.equal('/api/pets?limit=2');

    const created = await session.call('createPet', { body: { name: 'Tom' } });
    expect(created.result.structuredContent).to.deep.equal({ id: '2', name: 'Tom' });
    expect(JSON.parse(last('/api/pets').body)).to.deep.equal({ name: 'Tom' });

    const name = await session.call('getPetName', { petId: '1' });
    expect(name.result.structuredContent).to.deep.equal({ result: 'Rex' });
    expect(last('/v31/pets/1/name').headers.authorization).to.equal(`Basic ${Buffer.from(`toolgate:${PASSWORD}`).toString('base64')}`);
  });

  it('maps HTTP errors to isError results with the status and the body', async () => {
    const missing = await session.call('find_pet', { petId: '7' });
    expect(missing.result.isError).to.equal(true);
    expect(missing.result.content[0].text).to.equal('HTTP 404: {"error":"no pet"}');
  });

  it('keeps path parameters inside their segment: dot segments are refused, slashes encoded', async () => {
    const dots = await session.call('find_pet', { petId: '..' });
    expect(dots.result.isError).to.equal(true);
    expect(dots.result.content[0].text).to.include('may not be empty, "." or ".."');
    const before = api.seen.length;
    const slash = await session.call('find_pet', { petId: '../../openapi.yaml' });
    expect(slash.result.isError).to.equal(true);
    expect(api.seen.slice(before).map((s) => s.rawPath)).to.deep.equal(['/api/pets/..%2F..%2Fopenapi.yaml']);
  });

  it('bounds the response size', async function () {
    this.timeout(30_000);
    const big = await session.call('bigResponse');
    expect(big.result.isError).to.equal(true);
    expect(big.result.content[0].text).to.include('exceeds the size limit');
  });

  it('sends a query credential as a query parameter', async function () {
    this.timeout(60_000);
    const res = await t.owner.post('/api/v1/servers/openapi', {
      name: 'petstore-query',
      document: fixture('petstore-3.1.json'),
      base_url: `${api.url}/v31`,
      credential: { type: 'query', name: 'api_key', value: QUERY_KEY },
    });
    expect(res.status).to.equal(201);
    await waitConnected(t.owner, res.body.id, 2, 60_000);
    const tool = (await t.owner.get(`/api/v1/servers/${res.body.id}/tools?search=getPetName`)).body.items[0];
    const bundle = await t.owner.post('/api/v1/bundles', { name: 'Query pets', tools: [{ tool_id: tool.id }] });
    const s = new RawSession(`${t.url}/mcp/bundle/${bundle.body.bundle_key}`, '2025-06-18');
    await s.initialize();
    const out = await s.call('getPetName', { petId: '1' });
    expect(out.result.structuredContent).to.deep.equal({ result: 'Rex' });
    expect(last('/v31/pets/1/name?').rawPath).to.equal(`/v31/pets/1/name?api_key=${QUERY_KEY}`);
    expect(capturedLogs.join('')).to.not.include(QUERY_KEY).and.not.include(API_KEY).and.not.include(PASSWORD);
  });

  it('exports the OpenAPI documents with the configuration; its own export re-imports with no change, a changed document is a change', async () => {
    const { document } = (await t.owner.get('/api/v1/config/export')).body;
    const doc = parse(document);
    expect(Object.keys(doc.openapi_documents).sort()).to.deep.equal(['petstore-query', 'petstore30', 'petstore31']);
    expect(JSON.parse(doc.openapi_documents.petstore30).info.title).to.equal('Petstore (3.0)');
    expect(document).to.not.include(API_KEY);
    expect((await t.owner.post('/api/v1/config/import', { document })).body.changed).to.equal(false);
    const changed = JSON.parse(doc.openapi_documents.petstore30);
    delete changed.paths['/big'];
    doc.openapi_documents.petstore30 = JSON.stringify(changed);
    const dry = await t.owner.post('/api/v1/config/import', { document: JSON.stringify(doc), dry_run: true });
    expect(dry.body.changes).to.deep.equal([{ kind: 'server', name: 'petstore30', action: 'update', fields: ['openapi_document'] }]);
    doc.openapi_documents.petstore30 = 'swagger: "2.0"';
    const bad = await t.owner.post('/api/v1/config/import', { document: JSON.stringify(doc), dry_run: true });
    expect(bad.status).to.equal(422);
    expect(bad.body.detail[0].loc).to.deep.equal(['body', 'document', 'openapi_documents', 'petstore30']);
  });

  it('answers 422 for a document that is not OpenAPI 3, a refused URL, or no base URL', async () => {
    const swagger = await t.owner.post('/api/v1/servers/openapi', { name: 'old', document: 'swagger: "2.0"\ninfo: {}\npaths: {}\n' });
    expect(swagger.status).to.equal(422);
    expect(swagger.body.detail[0]).to.include({ type: 'openapi_document' });
    expect(swagger.body.detail[0].loc).to.deep.equal(['body', 'document']);
    const metadata = await t.owner.post('/api/v1/servers/openapi', { name: 'meta', document_url: 'http://169.254.169.254/openapi.json' });
    expect(metadata.status).to.equal(422);
    expect(metadata.body.detail[0].loc).to.deep.equal(['body', 'document_url']);
    const noBase = await t.owner.post('/api/v1/servers/openapi', { name: 'nobase', document: fixture('petstore-3.1.json') });
    expect(noBase.status).to.equal(422);
    expect(noBase.body.detail[0].loc).to.deep.equal(['body', 'base_url']);
    const refusedBase = await t.owner.post('/api/v1/servers/openapi', {
      name: 'refused',
      document: fixture('petstore-3.1.json'),
      base_url: 'http://169.254.169.254/',
    });
    expect(refusedBase.status).to.equal(422);
    expect((await t.owner.get('/api/v1/servers?search=refused')).body.total).to.equal(0);
  });
});
