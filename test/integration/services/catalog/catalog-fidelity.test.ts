import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { CatalogStore } from '../../../../src/stores/catalog-store.js';
import { SHAPED_SCHEMA_TEXT } from '../../../fixtures/raw-schema-server.js';
import { mcpFetch, modernRequest, RawSession, responseOf } from '../../../helpers/mcp-http.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { register, waitConnected } from '../../../helpers/upstreams.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';

const ROOT = path.resolve(import.meta.dirname, '../../../..');

describe('catalog fidelity: tool schemas as the upstream wrote them', function () {
  this.timeout(120000);
  let t: TestServer;
  let endpoint: string;
  let serverId: string;
  let admin: TestUser;

  before(async () => {
    t = await startTestServer({ env: LOOPBACK_UPSTREAMS });
    admin = await createUser(t, 'admin');
    const server = await register(admin.client, {
      name: 'raw-schema',
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'test/fixtures/raw-schema-server.ts')],
      cwd: ROOT,
    });
    serverId = server.id;
    await waitConnected(admin.client, serverId, 2);
    const listed = await admin.client.get(`/api/v1/servers/${serverId}/tools?page_size=100`);
    const bundle = await admin.client.post('/api/v1/bundles', {
      name: 'raw',
      tools: listed.body.items.map((tool: { id: string }) => ({ tool_id: tool.id })),
    });
    expect(bundle.status).to.equal(201);
    endpoint = `${t.url}/mcp/bundle/${bundle.body.bundle_key}`;
  });
  after(() => t?.stop());

  async function listTools(): Promise<any[]> {
    const reply = await mcpFetch(endpoint, modernRequest('tools/list'));
    return responseOf(reply).result.tools;
  }

  it('hands an input schema on byte for byte: key order and 2020-12 keywords ($anchor, allOf, if/then, $defs) intact', async () => {
    const shaped = (await listTools()).find((tool) => tool.name === 'shaped');
    expect(JSON.stringify(shaped.inputSchema)).to.equal(SHAPED_SCHEMA_TEXT);
  });

  it('stores text holding U+0000 (U+FFFD in descriptions and titles; escaped inside schemas) instead of failing the sync', async () => {
    const tools = await listTools();
    expect(tools.map((tool) => tool.name).sort()).to.deep.equal(['plain', 'shaped']);
    expect(tools.find((tool) => tool.name === 'shaped').description).to.equal('Nul\uFFFDin the description');
    const plain = tools.find((tool) => tool.name === 'plain');
    expect(plain.title).to.equal('Plain\uFFFDtitle');
    expect(plain.inputSchema.properties.note.default).to.equal('x\u0000y');
    const server = await admin.client.get(`/api/v1/servers/${serverId}`);
    expect(server.body.status).to.equal('connected');
  });

  it('reports a server connected only once its catalog is stored (a slow tools/list keeps it connecting)', async () => {
    const slow = await register(admin.client, {
      name: 'raw-schema-slow',
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'test/fixtures/raw-schema-server.ts')],
      env: { RAW_SCHEMA_LIST_DELAY_MS: '1500' },
      cwd: ROOT,
    });
    const seen: string[] = [];
    for (const started = Date.now(); Date.now() - started < 30_000;) {
      const server = (await admin.client.get(`/api/v1/servers/${slow.id}`)).body;
      seen.push(server.status);
      if (server.status !== 'connecting') {
        expect(server.status).to.equal('connected');
        expect(server.tool_count).to.equal(2);
        const tools = await admin.client.get(`/api/v1/servers/${slow.id}/tools`);
        expect(tools.body.total).to.equal(2);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen.at(-1)).to.equal('connected');
    // It was observed while connecting (the delayed list), not only after.
    expect(seen.filter((s) => s === 'connecting').length).to.be.greaterThan(5);
  });

  it('stores the catalog when two instances sync one server at the same moment (the later insert merges, no unique violation)', async () => {
    const other = await register(admin.client, {
      name: 'raw-schema-twice',
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'test/fixtures/raw-schema-server.ts')],
      cwd: ROOT,
    });
    expect((await admin.client.post(`/api/v1/servers/${other.id}/disable`, {})).status).to.equal(200);
    const knex = t.server.services.db.knex;
    const tool = (name: string, description: string) => ({
      name,
      title: null,
      description,
      input_schema: { type: 'object' },
      output_schema: null,
      annotations: null,
      meta: null,
      execution: null,
    });
    // Instance A's sync inserts and holds its transaction open; instance B's sync starts meanwhile
    // (on PostgreSQL its insert waits for A's row), then A commits and B must still succeed.
    const first = await knex.transaction();
    await new CatalogStore(first).syncTools(other.id, [tool('alpha', 'from A'), tool('beta', 'from A')], randomUUID);
    const second = knex.transaction(async (trx) =>
      new CatalogStore(trx).syncTools(other.id, [tool('alpha', 'from B'), tool('beta', 'from B')], randomUUID),
    );
    await new Promise((r) => setTimeout(r, 200));
    await first.commit();
    await second;
    const rows = await knex('mcp_tools').where({ server_id: other.id }).orderBy('name');
    expect(rows.map((r) => [r.name, r.description])).to.deep.equal([
      ['alpha', 'from B'],
      ['beta', 'from B'],
    ]);
    await admin.client.delete(`/api/v1/servers/${other.id}`);
  });

  it('records a call whose upstream error holds U+0000 (stored as U+FFFD) without blocking later records', async () => {
    const services = t.server.services;
    const session = new RawSession(endpoint, '2025-11-25');
    await session.initialize();
    const bad = await session.call('plain', { nul: true });
    expect(Boolean(bad.error ?? bad.result?.isError)).to.equal(true);
    const good = await session.call('plain');
    expect(good.result.content[0].text).to.equal('called plain');
    await services.callRecorder.flush();
    expect(services.callRecorder.pending).to.equal(0);
    const recent = await services.stores.callRecords.recent({ limit: 5 });
    expect(recent.map((r) => r.error).find((e) => e?.includes('broken'))).to.include('broken\uFFFDhere');
    expect(recent.filter((r) => r.tool_name === 'plain')).to.have.length(2);
  });
});
