import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ROOT } from '../../../helpers/contract.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { mcpFetch, responseOf } from '../../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../../helpers/test-upstreams.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** The official server.json schema, vendored (see test/fixtures/mcp-registry/README.md). */
function serverJsonValidator(): ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/mcp-registry/server.schema.json'), 'utf8')));
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'registry-test', version: '1.0.0' } },
};

describe('MCP Registry API (/v0.1/servers)', () => {
  let t: TestServer;
  let member: TestUser;
  let admin: TestUser;
  let validate: ValidateFunction;
  const ids: Record<string, string> = {};
  const keys: Record<string, string> = {};

  before(async () => {
    validate = serverJsonValidator();
    t = await startTestServer({ start: { upstreams: new TestUpstreams() } });
    const { tools } = putFixtureServer(t.server.services.catalog, 'github', [{ name: 'create_issue' }, { name: 'list_issues' }]);
    // Only admins create bundles; a member "may use" the bundles they created before being demoted.
    member = await createUser(t, 'admin');
    admin = await createUser(t, 'admin');
    const make = async (client: TestUser['client'], body: Record<string, unknown>) => {
      const res = await client.post('/api/v1/bundles', body);
      expect(res.status).to.equal(201);
      ids[body.name as string] = res.body.id;
      keys[body.name as string] = res.body.bundle_key;
    };
    await make(admin.client, {
      name: 'Support Tools',
      description: 'Tools for the support team',
      tools: [{ tool_id: tools.create_issue!.id }, { tool_id: tools.list_issues!.id }],
    });
    await make(admin.client, { name: 'Support tools!', tools: [{ tool_id: tools.list_issues!.id }] });
    await make(member.client, { name: 'Member Desk', description: 'x'.repeat(300) });
    for (let i = 0; i < 5; i++) await make(admin.client, { name: `Paged ${i}` });
    expect((await t.owner.patch(`/api/v1/users/${member.id}`, { role: 'member' })).status).to.equal(200);
  });
  after(() => t.stop());

  const names = (body: any): string[] => body.servers.map((s: any) => s.server.name);

  it('lists one entry per bundle for an admin, each valid against the official server.json schema', async () => {
    const res = await admin.client.get('/v0.1/servers?limit=100');
    expect(res.status).to.equal(200);
    expect(res.body.metadata).to.deep.equal({ count: 8 });
    for (const entry of res.body.servers) {
      expect(validate(entry.server), JSON.stringify(validate.errors)).to.equal(true);
      expect(entry._meta['io.modelcontextprotocol.registry/official']).to.include({ status: 'active', isLatest: true });
    }
    // Sorted by name; names are the reversed host plus the bundle's slug, told apart by id when alike.
    expect(names(res.body)).to.deep.equal([...names(res.body)].sort());
    const support = res.body.servers.filter((s: any) => s.server.title.startsWith('Support'));
    expect(support.map((s: any) => s.server.name).sort()).to.deep.equal(
      [
        `127.0.0.1/support-tools-${ids['Support Tools']!.slice(0, 8)}`,
        `127.0.0.1/support-tools-${ids['Support tools!']!.slice(0, 8)}`,
      ].sort(),
    );
  });

  it('describes the bundle: title, clipped description, version from its last change, both remotes', async () => {
    const res = await admin.client.get('/v0.1/servers?search=member%20desk');
    expect(res.body.servers).to.have.length(1);
    const { server, _meta } = res.body.servers[0];
    expect(server.title).to.equal('Member Desk');
    expect([...server.description]).to.have.length(100);
    expect(server.version).to.match(/^\d{8}\.\d{1,6}\.\d{1,3}$/);
    expect(server.$schema).to.equal('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    expect(server._meta['io.toolgate/bundle']).to.deep.equal({ bundle_id: ids['Member Desk'], tool_count: 0 });
    expect(server.remotes).to.deep.equal([
      { type: 'streamable-http', url: `${t.url}/mcp/gateway/bundles/${ids['Member Desk']}` },
      {
        type: 'streamable-http',
        url: `${t.url}/mcp/bundle/{bundle_key}`,
        variables: {
          bundle_key: {
            description: 'The key of the bundle "Member Desk" (from its owner in the Toolgate console)',
            isRequired: true,
            isSecret: true,
          },
        },
      },
    ]);
    expect(Date.parse(_meta['io.modelcontextprotocol.registry/official'].updatedAt)).to.be.a('number');
  });

  it('shows a member only the bundles they created (the rule of /mcp/gateway)', async () => {
    const res = await member.client.get('/v0.1/servers');
    expect(res.status).to.equal(200);
    expect(res.body.servers.map((s: any) => s.server.title)).to.deep.equal(['Member Desk']);
    const other = (await admin.client.get('/v0.1/servers?search=paged%200')).body.servers[0].server.name;
    const hidden = await member.client.get(`/v0.1/servers/${encodeURIComponent(other)}/versions`);
    expect(hidden.status).to.equal(404);
    expect(hidden.body.code).to.equal('server_not_found');
  });

  it('pages with an opaque cursor until nextCursor is absent', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await admin.client.get(`/v0.1/servers?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).to.equal(200);
      expect(res.body.metadata.count).to.equal(res.body.servers.length);
      seen.push(...names(res.body));
      cursor = res.body.metadata.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).to.equal(3);
    const all = names((await admin.client.get('/v0.1/servers?limit=100')).body);
    expect(seen).to.deep.equal(all);
  });

  it('answers 400 invalid_cursor for a cursor it did not issue', async () => {
    const res = await admin.client.get('/v0.1/servers?cursor=not-a-cursor');
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('invalid_cursor');
  });

  it('filters by updated_since and by version', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const renamed = await admin.client.put(`/api/v1/bundles/${ids['Paged 3']}`, { name: 'Paged 3 renamed' });
    expect(renamed.status).to.equal(200);
    const since = await admin.client.get(`/v0.1/servers?updated_since=${encodeURIComponent(renamed.body.updated_at)}`);
    expect(since.body.servers.map((s: any) => s.server.title)).to.deep.equal(['Paged 3 renamed']);
    const recent = await admin.client.get(`/v0.1/servers?updated_since=${encodeURIComponent(before)}&limit=100`);
    expect(recent.body.servers.map((s: any) => s.server.title)).to.include('Paged 3 renamed');
    const entry = since.body.servers[0].server;
    const exact = await admin.client.get(`/v0.1/servers?version=${encodeURIComponent(entry.version)}&limit=100`);
    expect(names(exact.body)).to.include(entry.name);
    const latest = await admin.client.get('/v0.1/servers?version=latest&limit=100');
    expect(latest.body.metadata.count).to.equal(8);
    const none = await admin.client.get('/v0.1/servers?version=1.0.0');
    expect(none.body).to.deep.equal({ servers: [], metadata: { count: 0 } });
  });

  it('serves /versions, /versions/latest and /versions/{exact}; another version is 404', async () => {
    const entry = (await member.client.get('/v0.1/servers')).body.servers[0];
    const encoded = encodeURIComponent(entry.server.name);
    const versions = await member.client.get(`/v0.1/servers/${encoded}/versions`);
    expect(versions.status).to.equal(200);
    expect(versions.body).to.deep.equal({ servers: [entry], metadata: { count: 1 } });
    const latest = await member.client.get(`/v0.1/servers/${encoded}/versions/latest`);
    expect(latest.body).to.deep.equal(entry);
    const exact = await member.client.get(`/v0.1/servers/${encoded}/versions/${encodeURIComponent(entry.server.version)}`);
    expect(exact.body).to.deep.equal(entry);
    const other = await member.client.get(`/v0.1/servers/${encoded}/versions/0.0.1`);
    expect(other.status).to.equal(404);
    expect(other.body.code).to.equal('version_not_found');
    const missing = await member.client.get(`/v0.1/servers/${encodeURIComponent('127.0.0.1/nope')}/versions/latest`);
    expect(missing.status).to.equal(404);
  });

  it('is authenticated like the rest of the API: 401 without a credential, 403 for a key without api:read', async () => {
    const anon = await t.anon.get('/v0.1/servers');
    expect(anon.status).to.equal(401);
    const mcpOnly = await createUser(t, 'admin', { scopes: ['mcp'] });
    const res = await mcpOnly.client.get('/v0.1/servers');
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('insufficient_scope');
  });

  it('lists remotes a client can connect to: the gateway form with an mcp key, the key form with the bundle key', async () => {
    const entry = (await admin.client.get('/v0.1/servers?search=member%20desk')).body.servers[0].server;
    const [gatewayRemote, keyRemote] = entry.remotes;
    const noCredential = await mcpFetch(gatewayRemote.url, { body: INIT, unchecked: true });
    expect(noCredential.status).to.equal(401);
    expect(noCredential.headers.get('www-authenticate')).to.include('resource_metadata=');
    const withKey = await mcpFetch(gatewayRemote.url, { body: INIT, headers: { authorization: `Bearer ${admin.key}` }, unchecked: true });
    expect(withKey.status).to.equal(200);
    expect(responseOf(withKey).result.serverInfo).to.be.an('object');
    const byBundleKey = await mcpFetch(keyRemote.url.replace('{bundle_key}', keys['Member Desk']!), { body: INIT, unchecked: true });
    expect(byBundleKey.status).to.equal(200);
    expect(responseOf(byBundleKey).result.serverInfo).to.be.an('object');
  });
});
