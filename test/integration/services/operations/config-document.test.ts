import { expect } from 'chai';
import { parse } from 'yaml';
import { resolveEnvReferences } from '../../../../src/domain/config-document.js';
import { openOAuthSecret } from '../../../../src/services/catalog/server-oauth-settings.js';
import { createUser } from '../../../helpers/identity.js';
import { RawSession, responseOf } from '../../../helpers/mcp-http.js';
import { seedSecret } from '../../../helpers/secrets.js';
import { capturedLogs, LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { fixtureStdio, register, startFixtureHttp, waitConnected, waitFor, type ChildServer } from '../../../helpers/upstreams.js';

const STDIO_SECRET = 'stdio-secret-value-7f3a91';
const HEADER_SECRET = 'header-secret-value-c02b77';

/** A bundle's tools/list on its bundle-key endpoint. */
async function toolsList(t: TestServer, key: string): Promise<unknown[]> {
  const session = new RawSession(`${t.url}/mcp/bundle/${key}`, '2025-06-18');
  await session.initialize();
  return responseOf(await session.request('tools/list')).result.tools;
}

/** Every bundle's tools/list by bundle name (keys rotated to read them). */
async function allToolLists(t: TestServer): Promise<Record<string, unknown[]>> {
  const bundles = (await t.owner.get('/api/v1/bundles?page_size=100')).body.items as { id: string; name: string }[];
  const out: Record<string, unknown[]> = {};
  for (const b of bundles) {
    const { bundle_key: key } = (await t.owner.post(`/api/v1/bundles/${b.id}/regenerate-key`)).body;
    out[b.name] = await toolsList(t, key);
  }
  return out;
}

describe('Configuration as code (GET /api/v1/config/export, POST /api/v1/config/import)', () => {
  let a: TestServer;
  let b: TestServer;
  let http: ChildServer;
  let stdioId: string;

  before(async function () {
    this.timeout(120_000);
    seedSecret(STDIO_SECRET);
    seedSecret(HEADER_SECRET);
    http = await startFixtureHttp('http');
    [a, b] = await Promise.all([startTestServer({ env: { ...LOOPBACK_UPSTREAMS } }), startTestServer({ env: { ...LOOPBACK_UPSTREAMS } })]);
    const stdio = await register(a.owner, {
      name: 'fixture-stdio',
      description: 'The fixture over stdio',
      transport: 'stdio',
      ...fixtureStdio(),
      env: { FIXTURE_MODE: 'plain' },
      secret_env: { FIXTURE_TOKEN: STDIO_SECRET },
    });
    stdioId = stdio.id;
    const remote = await register(a.owner, {
      name: 'fixture-http',
      transport: 'streamable_http',
      url: http.url,
      headers: { 'X-Api-Key': HEADER_SECRET },
      call_timeout_ms: 20_000,
    });
    await waitConnected(a.owner, stdio.id, 5);
    await waitConnected(a.owner, remote.id, 5);
    const tools = async (serverId: string) =>
      Object.fromEntries(
        ((await a.owner.get(`/api/v1/servers/${serverId}/tools?page_size=100`)).body.items as { id: string; name: string }[]).map((x) => [
          x.name,
          x.id,
        ]),
      );
    const s = await tools(stdio.id);
    const h = await tools(remote.id);
    const audio = s.test_audio_content!;
    expect((await a.owner.patch(`/api/v1/servers/${stdio.id}/tool-selection`, { tool_ids: [audio], enabled: false })).status).to.equal(200);
    const support = await a.owner.post('/api/v1/bundles', {
      name: 'Support',
      description: 'Support desk tools',
      tools: [
        { tool_id: s.greet!, override: { name: 'say_hello', description: 'Says hello to the world', pinned: { name: 'World' } } },
        { tool_id: s.test_simple_text!, display_order: 5 },
        { tool_id: h.greet!, override: { name: 'remote_greet', title: 'Remote greeting' } },
      ],
    });
    expect(support.status).to.equal(201);
    const ops = await a.owner.post('/api/v1/bundles', { name: 'Ops', tools: [{ tool_id: s.test_error_handling! }] });
    expect(ops.status).to.equal(201);
    expect(
      (await a.owner.put('/api/v1/settings/general', { log_retention_days: 12, registry_url: 'https://registry.example.com' })).status,
    ).to.equal(200);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await http?.stop();
  });

  it('exports settings, servers, tool selection and bundles as YAML, with secrets as references only', async () => {
    const res = await a.owner.get('/api/v1/config/export');
    expect(res.status).to.equal(200);
    expect(res.text).to.not.include(STDIO_SECRET).and.not.include(HEADER_SECRET);
    const doc = parse(res.body.document);
    expect(doc.toolgate_config).to.equal(1);
    expect(doc.settings).to.include({ log_retention_days: 12, registry_url: 'https://registry.example.com' });
    const stdio = doc.servers.find((s: any) => s.name === 'fixture-stdio');
    expect(stdio).to.include({ transport: 'stdio', description: 'The fixture over stdio', enabled: true });
    expect(stdio.env).to.deep.equal({ FIXTURE_MODE: 'plain' });
    expect(stdio.secret_env).to.deep.equal({ FIXTURE_TOKEN: 'secret://servers/fixture-stdio/secret_env/FIXTURE_TOKEN' });
    const remote = doc.servers.find((s: any) => s.name === 'fixture-http');
    expect(remote).to.include({ transport: 'streamable_http', url: http.url, call_timeout_ms: 20_000 });
    expect(remote.headers).to.deep.equal({ 'X-Api-Key': 'secret://servers/fixture-http/headers/X-Api-Key' });
    expect(doc.tool_selection['fixture-stdio']).to.include({ test_audio_content: false, greet: true });
    const support = doc.bundles.find((x: any) => x.name === 'Support');
    expect(support.tools).to.deep.equal(
      [
        {
          server: 'fixture-stdio',
          tool: 'greet',
          display_order: 0,
          override: { name: 'say_hello', description: 'Says hello to the world', pinned: { name: 'World' } },
        },
        { server: 'fixture-http', tool: 'greet', display_order: 6, override: { name: 'remote_greet', title: 'Remote greeting' } },
        { server: 'fixture-stdio', tool: 'test_simple_text', display_order: 5 },
      ].sort((x, y) => x.display_order - y.display_order),
    );
    expect(res.body.secret_references).to.have.members([
      'secret://servers/fixture-stdio/secret_env/FIXTURE_TOKEN',
      'secret://servers/fixture-http/headers/X-Api-Key',
    ]);
    expect(capturedLogs.join('')).to.not.include(STDIO_SECRET).and.not.include(HEADER_SECRET);
  });

  it('is for admins: 401 without a credential, 403 for a member', async () => {
    expect((await a.anon.get('/api/v1/config/export')).status).to.equal(401);
    const member = await createUser(a, 'member');
    expect((await member.client.get('/api/v1/config/export')).status).to.equal(403);
    expect((await member.client.post('/api/v1/config/import', { document: 'toolgate_config: 1' })).status).to.equal(403);
  });

  it('imports its own export idempotently: the dry run and the import report no change', async () => {
    const { document } = (await a.owner.get('/api/v1/config/export')).body;
    const before = (await a.owner.get('/api/v1/bundles?page_size=100')).body.items.map((x: any) => x.updated_at);
    const dry = await a.owner.post('/api/v1/config/import', { document, dry_run: true });
    expect(dry.status).to.equal(200);
    expect(dry.body).to.deep.equal({ dry_run: true, changed: false, changes: [] });
    const applied = await a.owner.post('/api/v1/config/import', { document });
    expect(applied.body).to.deep.equal({ dry_run: false, changed: false, changes: [] });
    const after = (await a.owner.get('/api/v1/bundles?page_size=100')).body.items.map((x: any) => x.updated_at);
    expect(after).to.deep.equal(before);
  });

  it('refuses ${env:…} references over REST (only the CLI resolves them)', async () => {
    const { document } = (await a.owner.get('/api/v1/config/export?secrets=env')).body;
    expect(document).to.include('${env:TOOLGATE_SECRET_FIXTURE_STDIO_FIXTURE_TOKEN}');
    const res = await b.owner.post('/api/v1/config/import', { document });
    expect(res.status).to.equal(422);
    expect(res.body.detail.map((d: any) => d.type)).to.include('env_reference');
    expect(res.body.detail[0].loc.slice(0, 3)).to.deep.equal(['body', 'document', 'servers']);
    expect((await b.owner.get('/api/v1/servers')).body.total).to.equal(0);
  });

  it('a secret:// reference to a secret the instance does not hold is 422, and nothing is written', async () => {
    const { document } = (await a.owner.get('/api/v1/config/export')).body;
    const res = await b.owner.post('/api/v1/config/import', { document });
    expect(res.status).to.equal(422);
    expect(res.body.detail.map((d: any) => d.type)).to.include('secret_unresolved');
    expect((await b.owner.get('/api/v1/bundles')).body.total).to.equal(0);
  });

  it('export a seeded instance, import into an empty one: every bundle answers the same tools/list', async function () {
    this.timeout(120_000);
    const { document } = (await a.owner.get('/api/v1/config/export?secrets=env')).body;
    // What the CLI does before it sends the document: resolve ${env:…} from its environment.
    const doc = parse(document);
    const { missing } = resolveEnvReferences(doc, {
      TOOLGATE_SECRET_FIXTURE_STDIO_FIXTURE_TOKEN: STDIO_SECRET,
      TOOLGATE_SECRET_FIXTURE_HTTP_X_API_KEY: HEADER_SECRET,
    });
    expect(missing).to.deep.equal([]);
    const resolved = JSON.stringify(doc);
    const dry = await b.owner.post('/api/v1/config/import', { document: resolved, dry_run: true });
    expect(dry.status).to.equal(200);
    expect(dry.body.changed).to.equal(true);
    expect((await b.owner.get('/api/v1/servers')).body.total).to.equal(0);

    const res = await b.owner.post('/api/v1/config/import', { document: resolved });
    expect(res.status).to.equal(200);
    const summary = res.body.changes.map((c: any) => `${c.action} ${c.kind} ${c.name}`);
    expect(summary).to.include.members([
      'update setting general',
      'create server fixture-stdio',
      'create server fixture-http',
      'create bundle Support',
      'create bundle Ops',
    ]);
    expect(res.text).to.not.include(STDIO_SECRET).and.not.include(HEADER_SECRET);
    const servers = (await b.owner.get('/api/v1/servers')).body.items as { id: string; name: string }[];
    for (const s of servers) await waitConnected(b.owner, s.id, 5);
    // The secrets arrived sealed, as the seeded instance holds them.
    const row = await b.server.services.stores.servers.findByName('fixture-stdio');
    expect(b.server.services.servers.open(row!.secret_env_sealed)).to.deep.equal({ FIXTURE_TOKEN: STDIO_SECRET });
    expect((await b.owner.get('/api/v1/settings/general')).body).to.include({ log_retention_days: 12 });
    const bTools = await waitFor<Record<string, unknown[]>>('bundles of B list their tools', async () => {
      const lists = await allToolLists(b);
      return Object.values(lists).every((l) => l.length > 0) ? lists : (false as unknown as Record<string, unknown[]>);
    });
    expect(bTools).to.deep.equal(await allToolLists(a));
    expect(Object.keys(bTools).sort()).to.deep.equal(['Ops', 'Support']);
    expect((bTools.Support as any[]).map((x) => x.name)).to.deep.equal(['say_hello', 'test_simple_text', 'remote_greet']);

    // The same document twice changes nothing.
    const again = await b.owner.post('/api/v1/config/import', { document: resolved });
    expect(again.body).to.deep.equal({ dry_run: false, changed: false, changes: [] });
    // Its own export, applied back, changes nothing either.
    const own = (await b.owner.get('/api/v1/config/export')).body.document;
    expect((await b.owner.post('/api/v1/config/import', { document: own })).body.changed).to.equal(false);
  });

  it('a dry run shows the diff of a changed document and writes nothing', async () => {
    const doc = parse((await a.owner.get('/api/v1/config/export')).body.document);
    const support = doc.bundles.find((x: any) => x.name === 'Support');
    support.description = 'Changed';
    support.tools = support.tools.filter((t: any) => t.tool !== 'test_simple_text');
    support.tools[0].override.pinned = { name: 'Moon' };
    doc.tool_selection['fixture-stdio'].test_audio_content = true;
    doc.bundles.push({ name: 'New one', tools: [{ server: 'fixture-stdio', tool: 'greet' }] });
    const res = await a.owner.post('/api/v1/config/import', { document: JSON.stringify(doc), dry_run: true });
    expect(res.status).to.equal(200);
    expect(res.body.changes).to.deep.equal([
      { kind: 'tool', name: 'fixture-stdio/test_audio_content', action: 'update', fields: ['enabled'] },
      { kind: 'bundle', name: 'Support', action: 'update', fields: ['description'] },
      { kind: 'bundle_tool', name: 'Support: fixture-stdio/test_simple_text', action: 'remove', fields: [] },
      { kind: 'bundle_tool', name: 'Support: fixture-stdio/greet', action: 'update', fields: ['override'] },
      { kind: 'bundle', name: 'New one', action: 'create', fields: [] },
    ]);
    const bundles = (await a.owner.get('/api/v1/bundles?page_size=100')).body.items.map((x: any) => x.name).sort();
    expect(bundles).to.deep.equal(['Ops', 'Support']);
    const tools = (await a.owner.get(`/api/v1/servers/${stdioId}/tools?search=test_audio_content`)).body.items;
    expect(tools[0].enabled).to.equal(false);
  });

  it('applies a changed document: bundle details, tools and overrides as written', async () => {
    const doc = parse((await a.owner.get('/api/v1/config/export')).body.document);
    const ops = doc.bundles.find((x: any) => x.name === 'Ops');
    ops.tools.push({ server: 'fixture-stdio', tool: 'greet', override: { name: 'ops_greet', defaults: { name: 'ops' } } });
    const res = await a.owner.post('/api/v1/config/import', { document: JSON.stringify(doc) });
    expect(res.body.changes).to.deep.equal([{ kind: 'bundle_tool', name: 'Ops: fixture-stdio/greet', action: 'create', fields: [] }]);
    const id = (await a.owner.get('/api/v1/bundles?search=Ops')).body.items[0].id;
    const { bundle_key: key } = (await a.owner.post(`/api/v1/bundles/${id}/regenerate-key`)).body;
    const names = ((await toolsList(a, key)) as any[]).map((x) => x.name);
    expect(names).to.deep.equal(['test_error_handling', 'ops_greet']);
  });

  it('answers 422 with the place in the document for bad YAML, unknown fields and unknown servers', async () => {
    const bad = await a.owner.post('/api/v1/config/import', { document: 'toolgate_config: [1' });
    expect(bad.status).to.equal(422);
    expect(bad.body.detail[0]).to.include({ type: 'yaml_syntax' });
    expect(bad.body.detail[0].loc).to.deep.equal(['body', 'document']);
    const extra = await a.owner.post('/api/v1/config/import', { document: 'toolgate_config: 1\nsurprise: true\n' });
    expect(extra.status).to.equal(422);
    expect(extra.body.detail[0].loc).to.deep.equal(['body', 'document', 'surprise']);
    const wrong = await a.owner.post('/api/v1/config/import', {
      document: JSON.stringify({ toolgate_config: 1, bundles: [{ name: 'X', tools: [{ server: 'nope', tool: 'greet' }] }] }),
    });
    expect(wrong.status).to.equal(422);
    expect(wrong.body.detail[0]).to.include({ type: 'unknown_server' });
    expect(wrong.body.detail[0].loc).to.deep.equal(['body', 'document', 'bundles', 0, 'tools', 0, 'server']);
  });

  it('answers 409 when two tools of a bundle would share a name, and writes nothing', async () => {
    const res = await a.owner.post('/api/v1/config/import', {
      document: JSON.stringify({
        toolgate_config: 1,
        bundles: [
          {
            name: 'Clash',
            tools: [
              { server: 'fixture-stdio', tool: 'greet' },
              { server: 'fixture-http', tool: 'greet' },
            ],
          },
        ],
      }),
    });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('tool_name_taken');
    expect((await a.owner.get('/api/v1/bundles?search=Clash')).body.total).to.equal(0);
  });

  it('keeps a sandboxed server sandboxed through export and import (its approved network is not in the document)', async () => {
    const jailed = await register(a.owner, { name: 'jailed-doc', transport: 'stdio', ...fixtureStdio(), sandboxed: true, enabled: false });
    try {
      const { document } = (await a.owner.get('/api/v1/config/export')).body;
      const servers = parse(document).servers as { name: string; sandboxed?: boolean }[];
      expect(servers.find((x) => x.name === 'jailed-doc')!.sandboxed).to.equal(true);
      expect(servers.find((x) => x.name === 'fixture-stdio')!.sandboxed).to.equal(undefined);
      // Unsandboxing through a document is a change the dry run names.
      const unjailed = document.replace(/(name: jailed-doc[\s\S]*?)sandboxed: true/, '$1sandboxed: false');
      const dry = await a.owner.post('/api/v1/config/import', { document: unjailed, dry_run: true });
      expect(dry.body.changes).to.deep.equal([{ kind: 'server', name: 'jailed-doc', action: 'update', fields: ['sandboxed'] }]);
      // A new server imported from a document comes in sandboxed.
      const created = await a.owner.post('/api/v1/config/import', {
        document: JSON.stringify({
          toolgate_config: 1,
          servers: [{ name: 'jailed-new', transport: 'stdio', ...fixtureStdio(), sandboxed: true, enabled: false }],
        }),
      });
      expect(created.status, created.text).to.equal(200);
      const listed = (await a.owner.get('/api/v1/servers?search=jailed-new')).body.items[0];
      expect(listed).to.include({ sandboxed: true });
      expect((await a.owner.delete(`/api/v1/servers/${listed.id}`)).status).to.equal(204);
    } finally {
      await a.owner.delete(`/api/v1/servers/${jailed.id}`);
    }
  });

  it('carries a server’s OAuth setting through export and import, its client secret as a reference only', async () => {
    const secret = 'pre-registered-secret-9f3e1c';
    seedSecret(secret);
    const created = await a.owner.post('/api/v1/servers', {
      name: 'oauth-doc',
      transport: 'streamable_http',
      url: 'https://mcp.example.com/mcp',
      auth_mode: 'oauth_shared',
      oauth: {
        client_id: 'toolgate-client',
        client_secret: secret,
        token_endpoint_auth_method: 'client_secret_post',
        scopes: ['read', 'write'],
      },
      enabled: false,
    });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.id as string;
    try {
      const { document } = (await a.owner.get('/api/v1/config/export')).body;
      expect(document).to.not.include(secret);
      const entry = (parse(document).servers as Record<string, unknown>[]).find((x) => x.name === 'oauth-doc')!;
      expect(entry).to.deep.include({
        auth_mode: 'oauth_shared',
        oauth: {
          client_id: 'toolgate-client',
          client_secret: 'secret://servers/oauth-doc/oauth/client_secret',
          token_endpoint_auth_method: 'client_secret_post',
          scopes: ['read', 'write'],
        },
      });
      // The same document changes nothing: the secret reference resolves to the value held.
      const same = await a.owner.post('/api/v1/config/import', { document, dry_run: true });
      expect(same.status, same.text).to.equal(200);
      expect(same.body.changes.filter((c: { name: string }) => c.name === 'oauth-doc')).to.deep.equal([]);
      // A changed scope and a new secret are changes the import names and makes.
      const changed = document
        .replace('secret://servers/oauth-doc/oauth/client_secret', 'another-secret-7d1a')
        .replace(/(name: oauth-doc[\s\S]*?scopes:\n\s*- read\n\s*- )write/, '$1admin');
      const applied = await a.owner.post('/api/v1/config/import', { document: changed });
      expect(applied.status, applied.text).to.equal(200);
      expect(applied.body.changes.filter((c: { name: string }) => c.name === 'oauth-doc')).to.deep.equal([
        { kind: 'server', name: 'oauth-doc', action: 'update', fields: ['oauth_client_secret', 'oauth_scopes'] },
      ]);
      const row = (await a.server.services.stores.servers.all()).find((r) => r.id === id)!;
      expect(row.oauth_scopes).to.deep.equal(['read', 'admin']);
      expect(openOAuthSecret(a.server.services.secrets, row)).to.equal('another-secret-7d1a');
      // Imported into an empty instance with the value written in, the server comes in behind OAuth.
      const fresh = await b.owner.post('/api/v1/config/import', {
        document: JSON.stringify({
          toolgate_config: 1,
          servers: [{ ...entry, oauth: { ...(entry.oauth as object), client_secret: secret } }],
        }),
      });
      expect(fresh.status, fresh.text).to.equal(200);
      const imported = (await b.owner.get('/api/v1/servers?search=oauth-doc')).body.items[0];
      expect(imported.auth_mode).to.equal('oauth_shared');
      expect(imported.oauth).to.deep.include({ client_id: 'toolgate-client', has_client_secret: true, scopes: ['read', 'write'] });
      expect(JSON.stringify(imported)).to.not.include(secret);
      // A private key that is not one is a 422 at its place in the document, and nothing is written.
      const bad = await b.owner.post('/api/v1/config/import', {
        document: JSON.stringify({
          toolgate_config: 1,
          servers: [
            {
              ...entry,
              name: 'oauth-bad',
              oauth: { client_id: 'c', client_secret: 'not a key', token_endpoint_auth_method: 'private_key_jwt' },
            },
          ],
        }),
      });
      expect(bad.status, bad.text).to.equal(422);
      expect(bad.body.detail[0].loc).to.deep.equal(['body', 'document', 'servers', 0, 'oauth', 'client_secret']);
      expect(bad.text).to.not.include('not a key');
      expect((await b.owner.get('/api/v1/servers?search=oauth-bad')).body.items).to.deep.equal([]);
      await b.owner.delete(`/api/v1/servers/${imported.id}`);
    } finally {
      await a.owner.delete(`/api/v1/servers/${id}`);
    }
  });
});
