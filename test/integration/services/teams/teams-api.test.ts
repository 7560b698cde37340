import { expect } from 'chai';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { mcpFetch, modernRequest } from '../../../helpers/mcp-http.js';
import { TestOidcProvider } from '../../../helpers/oidc-provider.js';
import { seedSecret } from '../../../helpers/secrets.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { putFixtureServer } from '../../../helpers/test-upstreams.js';

const CLIENT_ID = 'toolgate-teams';
const CLIENT_SECRET = seedSecret('oidc-teams-secret-canary-51c2');

function cookieValue(setCookies: string[], name: string): string | undefined {
  const c = setCookies.find((s) => s.startsWith(`${name}=`));
  return c ? c.slice(name.length + 1).split(';')[0] : undefined;
}

/**
 * Teams and sharing: admins manage teams and their members (and OAuth group mappings applied at
 * sign-in); bundles shared with a team or a user, for view or use, are what a member sees in REST
 * and what their `/mcp/gateway` serves; members see servers without their launch details.
 */
describe('teams and bundle sharing', function () {
  this.timeout(120_000);
  let t: TestServer;
  let idp: TestOidcProvider;
  let admin: TestUser;
  let member: TestUser;
  let other: TestUser;
  let tools: ReturnType<typeof putFixtureServer>['tools'];

  async function gatewayTools(user: TestUser): Promise<string[]> {
    const { headers, body } = modernRequest('tools/list', {});
    const reply = await mcpFetch(`${t.url}/mcp/gateway`, { body, headers: { ...headers, authorization: `Bearer ${user.key}` } });
    expect(reply.status, reply.text).to.equal(200);
    return reply.json.result.tools.map((x: { name: string }) => x.name).sort();
  }
  async function bundle(name: string, toolNames: string[]): Promise<{ id: string }> {
    const res = await admin.client.post('/api/v1/bundles', { name, tools: toolNames.map((n) => ({ tool_id: tools[n]!.id })) });
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }

  before(async () => {
    idp = await new TestOidcProvider().start();
    t = await startTestServer({ env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*', TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '100000' } });
    idp.clients.set(CLIENT_ID, { secret: CLIENT_SECRET, redirectUris: [`${t.url}/api/v1/auth/callback/oidc`] });
    admin = await createUser(t, 'admin');
    member = await createUser(t, 'member');
    other = await createUser(t, 'member');
    tools = putFixtureServer(t.server.services.catalog, 'notes', [
      { name: 'write_note' },
      { name: 'read_note' },
      { name: 'delete_note' },
      { name: 'audit_note' },
    ]).tools;
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  describe('teams REST', () => {
    it('creates, lists, renames, fills and deletes a team; records each in the activity log', async () => {
      const created = await admin.client.post('/api/v1/teams', {
        name: 'Platform',
        description: 'Platform engineering',
        oauth_groups: [{ provider_type: 'oidc', group: 'platform-eng' }],
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ name: 'Platform', description: 'Platform engineering', member_count: 0 });
      expect(created.body.oauth_groups).to.deep.equal([{ provider_type: 'oidc', group: 'platform-eng' }]);
      const id = created.body.id as string;

      const added = await admin.client.put(`/api/v1/teams/${id}/members/${member.id}`);
      expect(added.status, added.text).to.equal(200);
      expect(added.body.members.map((m: { user_id: string; source: string }) => [m.user_id, m.source])).to.deep.equal([
        [member.id, 'manual'],
      ]);
      // Idempotent.
      expect((await admin.client.put(`/api/v1/teams/${id}/members/${member.id}`)).body.member_count).to.equal(1);

      const renamed = await admin.client.patch(`/api/v1/teams/${id}`, { name: 'Platform team', description: null });
      expect(renamed.status).to.equal(200);
      expect(renamed.body).to.include({ name: 'Platform team', description: null, member_count: 1 });

      const listed = await admin.client.get('/api/v1/teams?search=platform');
      expect(listed.status).to.equal(200);
      expect(listed.body.items.map((x: { id: string }) => x.id)).to.include(id);

      expect((await admin.client.delete(`/api/v1/teams/${id}/members/${member.id}`)).status).to.equal(204);
      expect((await admin.client.delete(`/api/v1/teams/${id}/members/${member.id}`)).status).to.equal(404);
      expect((await admin.client.delete(`/api/v1/teams/${id}`)).status).to.equal(204);
      expect((await admin.client.get(`/api/v1/teams/${id}`)).status).to.equal(404);

      const actions = (await t.server.services.stores.activity.recent({ limit: 200, failedOnly: false })).map((r) => r.action);
      for (const a of ['team.create', 'team.member.add', 'team.update', 'team.member.remove', 'team.delete']) expect(actions).to.include(a);
    });

    it('answers 409 for a taken name (any case), 422 for a blank one, 404 for an unknown team or user', async () => {
      expect((await admin.client.post('/api/v1/teams', { name: 'Support' })).status).to.equal(201);
      const dup = await admin.client.post('/api/v1/teams', { name: 'SUPPORT' });
      expect(dup.status).to.equal(409);
      expect(dup.body.code ?? dup.body.error).to.be.a('string');
      expect((await admin.client.post('/api/v1/teams', { name: '   ' })).status).to.equal(422);
      expect((await admin.client.post('/api/v1/teams', { name: 'x', extra: 1 })).status).to.equal(422);
      const team = (await admin.client.post('/api/v1/teams', { name: 'Lonely' })).body;
      expect((await admin.client.put(`/api/v1/teams/${team.id}/members/${crypto.randomUUID()}`)).status).to.equal(404);
      expect((await admin.client.put(`/api/v1/teams/${crypto.randomUUID()}/members/${member.id}`)).status).to.equal(404);
    });

    it('is for admins only (403 to members)', async () => {
      expect((await member.client.get('/api/v1/teams')).status).to.equal(403);
      expect((await member.client.post('/api/v1/teams', { name: 'Mine' })).status).to.equal(403);
    });
  });

  describe('sharing', () => {
    it('gives a member the bundles shared with their team or them for use, on REST and on /mcp/gateway; view-only shows without serving', async () => {
      const team = (await admin.client.post('/api/v1/teams', { name: 'Writers' })).body;
      await admin.client.put(`/api/v1/teams/${team.id}/members/${member.id}`);
      const teamBundle = await bundle('Team notes', ['write_note']);
      const userBundle = await bundle('Personal notes', ['read_note']);
      const viewBundle = await bundle('Viewed notes', ['audit_note']);
      const hidden = await bundle('Hidden notes', ['delete_note']);

      expect(await gatewayTools(member)).to.deep.equal([]);
      expect((await member.client.get('/api/v1/bundles')).body.total).to.equal(0);

      const shared = await admin.client.put(`/api/v1/bundles/${teamBundle.id}/shares`, {
        shares: [{ principal_type: 'team', principal_id: team.id, access: 'use' }],
      });
      expect(shared.status, shared.text).to.equal(200);
      expect(shared.body.items).to.have.length(1);
      expect(shared.body.items[0]).to.include({ principal_type: 'team', principal_id: team.id, name: 'Writers', access: 'use' });
      await admin.client.put(`/api/v1/bundles/${userBundle.id}/shares`, {
        shares: [{ principal_type: 'user', principal_id: member.id, access: 'use' }],
      });
      await admin.client.put(`/api/v1/bundles/${viewBundle.id}/shares`, {
        shares: [
          { principal_type: 'team', principal_id: team.id, access: 'view' },
          { principal_type: 'user', principal_id: other.id, access: 'use' },
        ],
      });

      const listed = await member.client.get('/api/v1/bundles');
      expect(listed.status).to.equal(200);
      expect(listed.body.items.map((b: { name: string; access: string }) => [b.name, b.access])).to.deep.equal([
        ['Personal notes', 'use'],
        ['Team notes', 'use'],
        ['Viewed notes', 'view'],
      ]);
      expect(listed.body.total).to.equal(3);
      expect((await member.client.get(`/api/v1/bundles/${viewBundle.id}`)).body.access).to.equal('view');
      expect((await member.client.get(`/api/v1/bundles/${hidden.id}`)).status).to.equal(404);
      expect((await admin.client.get(`/api/v1/bundles/${hidden.id}`)).body.access).to.equal('manage');

      expect(await gatewayTools(member)).to.deep.equal(['read_note', 'write_note'].sort());
      expect(await gatewayTools(other)).to.deep.equal(['audit_note']);

      // A member may select a bundle shared for use, not one shared view-only.
      expect((await member.client.put('/api/v1/users/me/gateway-settings', { bundle_ids: [teamBundle.id] })).status).to.equal(200);
      expect((await member.client.put('/api/v1/users/me/gateway-settings', { bundle_ids: [viewBundle.id] })).status).to.equal(400);
      expect((await member.client.put('/api/v1/users/me/gateway-settings', { bundle_ids: [] })).status).to.equal(200);

      // Leaving the team takes its bundles away at once; the personal share stays.
      expect((await admin.client.delete(`/api/v1/teams/${team.id}/members/${member.id}`)).status).to.equal(204);
      expect(await gatewayTools(member)).to.deep.equal(['read_note']);
      expect((await member.client.get('/api/v1/bundles')).body.items.map((b: { name: string }) => b.name)).to.deep.equal([
        'Personal notes',
      ]);
      // Unsharing too.
      await admin.client.put(`/api/v1/bundles/${userBundle.id}/shares`, { shares: [] });
      expect(await gatewayTools(member)).to.deep.equal([]);
    });

    it('deleting a team ends what its members reached through it', async () => {
      const team = (await admin.client.post('/api/v1/teams', { name: 'Temporary' })).body;
      await admin.client.put(`/api/v1/teams/${team.id}/members/${other.id}`);
      const b = await bundle('Temp notes', ['delete_note']);
      await admin.client.put(`/api/v1/bundles/${b.id}/shares`, {
        shares: [{ principal_type: 'team', principal_id: team.id, access: 'use' }],
      });
      expect(await gatewayTools(other)).to.include('delete_note');
      expect((await admin.client.delete(`/api/v1/teams/${team.id}`)).status).to.equal(204);
      expect(await gatewayTools(other)).to.not.include('delete_note');
      expect((await admin.client.get(`/api/v1/bundles/${b.id}/shares`)).body.items).to.deep.equal([]);
    });

    it('answers 404 for an unknown grantee and 422 for one named twice, changing nothing; 403 to members', async () => {
      const b = await bundle('Strict notes', ['write_note']);
      const unknown = await admin.client.put(`/api/v1/bundles/${b.id}/shares`, {
        shares: [{ principal_type: 'team', principal_id: crypto.randomUUID(), access: 'use' }],
      });
      expect(unknown.status).to.equal(404);
      const twice = await admin.client.put(`/api/v1/bundles/${b.id}/shares`, {
        shares: [
          { principal_type: 'user', principal_id: member.id, access: 'use' },
          { principal_type: 'user', principal_id: member.id, access: 'view' },
        ],
      });
      expect(twice.status).to.equal(422);
      expect(twice.body.detail[0].loc).to.deep.equal(['body', 'shares', 1, 'principal_id']);
      expect(
        (
          await admin.client.put(`/api/v1/bundles/${b.id}/shares`, {
            shares: [{ principal_type: 'group', principal_id: member.id, access: 'use' }],
          })
        ).status,
      ).to.equal(422);
      expect((await admin.client.get(`/api/v1/bundles/${b.id}/shares`)).body.items).to.deep.equal([]);
      expect((await member.client.put(`/api/v1/bundles/${b.id}/shares`, { shares: [] })).status).to.equal(403);
      expect((await admin.client.get(`/api/v1/bundles/${crypto.randomUUID()}/shares`)).status).to.equal(404);
    });
  });

  describe('OAuth group claims', () => {
    async function login(sub: string, email: string, groups?: string[]): Promise<string> {
      idp.nextUser = { sub, email, email_verified: true, name: sub, ...(groups ? { groups } : {}) };
      const start = await t.anon.get('/api/v1/auth/login/oidc');
      expect(start.status).to.equal(302);
      const stateCookie = cookieValue(start.headers.getSetCookie(), 'tg_oauth_state');
      const atIdp = await fetch(start.headers.get('location')!, { redirect: 'manual' });
      const callback = new URL(atIdp.headers.get('location')!);
      const res = await t.anon.get(`${callback.pathname}${callback.search}`, { cookie: `tg_oauth_state=${stateCookie}` });
      expect(res.status, res.text).to.equal(302);
      const user = await t.server.services.stores.users.findByEmail(email);
      return user!.id;
    }

    before(async () => {
      const created = await admin.client.post('/api/v1/settings/auth/providers', {
        provider_type: 'oidc',
        display_name: 'SSO',
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        config: { discovery_url: idp.discoveryUrl },
      });
      expect(created.status, created.text).to.equal(201);
      await admin.client.patch('/api/v1/settings/auth', { allowed_domains: ['corp.example'] });
    });

    it('places a user in the mapped teams at sign-in, and takes them out when the claim no longer maps; manual memberships stay', async () => {
      const ops = (await admin.client.post('/api/v1/teams', { name: 'Ops', oauth_groups: [{ provider_type: 'oidc', group: 'ops' }] })).body;
      const sec = (await admin.client.post('/api/v1/teams', { name: 'Security', oauth_groups: [{ provider_type: 'oidc', group: 'sec' }] }))
        .body;
      const manual = (
        await admin.client.post('/api/v1/teams', { name: 'Hand-picked', oauth_groups: [{ provider_type: 'oidc', group: 'sec' }] })
      ).body;
      const b = await bundle('Ops notes', ['audit_note']);
      await admin.client.put(`/api/v1/bundles/${b.id}/shares`, {
        shares: [{ principal_type: 'team', principal_id: ops.id, access: 'use' }],
      });

      const userId = await login('sub-gil', 'gil@corp.example', ['ops', 'sec', 'unmapped']);
      await admin.client.put(`/api/v1/teams/${manual.id}/members/${userId}`);
      const sources = async (teamId: string): Promise<string[]> =>
        (await admin.client.get(`/api/v1/teams/${teamId}`)).body.members
          .filter((m: { user_id: string }) => m.user_id === userId)
          .map((m: { source: string }) => m.source);
      expect(await sources(ops.id)).to.deep.equal(['oauth']);
      expect(await sources(sec.id)).to.deep.equal(['oauth']);
      expect(await sources(manual.id)).to.deep.equal(['manual']);
      expect(t.server.services.teamMemberships.teamsOf(userId).has(ops.id)).to.equal(true);

      // Next sign-in: only `sec`. Ops (made by the claim) ends; the manual membership stays.
      await login('sub-gil', 'gil@corp.example', ['sec']);
      expect(await sources(ops.id)).to.deep.equal([]);
      expect(await sources(sec.id)).to.deep.equal(['oauth']);
      expect(await sources(manual.id)).to.deep.equal(['manual']);
      // A sign-in without a group claim leaves memberships alone.
      await login('sub-gil', 'gil@corp.example');
      expect(await sources(sec.id)).to.deep.equal(['oauth']);
      const actions = (await t.server.services.stores.activity.recent({ limit: 200, failedOnly: false })).map((r) => r.action);
      expect(actions).to.include('team.membership.sync');
    });
  });

  describe('servers as members see them', () => {
    it('withholds command, args, env, cwd, header names and the URL query from members; admins see them', async () => {
      const stdio = await admin.client.post('/api/v1/servers', {
        name: 'hidden-launch',
        transport: 'stdio',
        command: 'node',
        args: ['--token=abc', 'server.js'],
        env: { REGION: 'eu-1' },
        secret_env: { API_TOKEN: 'secret-value' },
        cwd: '/srv/tools',
        enabled: false,
      });
      expect(stdio.status, stdio.text).to.equal(201);
      const http = await admin.client.post('/api/v1/servers', {
        name: 'hidden-url',
        transport: 'streamable_http',
        url: 'https://tools.example.com/mcp?tenant=acme&sig=xyz',
        headers: { 'x-api-key': 'secret-header' },
        enabled: false,
      });
      expect(http.status, http.text).to.equal(201);

      const asAdmin = await admin.client.get(`/api/v1/servers/${stdio.body.id}`);
      expect(asAdmin.body).to.include({ command: 'node', cwd: '/srv/tools', redacted: false });
      expect(asAdmin.body.args).to.deep.equal(['--token=abc', 'server.js']);

      const one = await member.client.get(`/api/v1/servers/${stdio.body.id}`);
      expect(one.status).to.equal(200);
      expect(one.body).to.include({ command: null, cwd: null, redacted: true, name: 'hidden-launch' });
      expect(one.body.args).to.deep.equal([]);
      expect(one.body.env).to.deep.equal({});
      expect(one.body.secret_env_keys).to.deep.equal([]);
      const list = await member.client.get('/api/v1/servers?page_size=100');
      const url = list.body.items.find((s: { id: string }) => s.id === http.body.id);
      expect(url).to.include({ url: 'https://tools.example.com/mcp', redacted: true });
      expect(url.header_names).to.deep.equal([]);
      expect(JSON.stringify(list.body)).to.not.include('tenant=acme').and.not.include('--token').and.not.include('REGION');
    });
  });
});
