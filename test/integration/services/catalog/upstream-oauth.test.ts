import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { FakeAuthorizationServer, ProtectedMcpServer } from '../../../fixtures/oauth-upstream.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { mcpFetch, responseOf } from '../../../helpers/mcp-http.js';
import { bundleOf, whoami } from '../../../helpers/upstream-oauth.js';
import { capturedLogs, LOOPBACK_UPSTREAMS, startTestServer, TEST_DATABASE_URL, type TestServer } from '../../../helpers/test-server.js';
import { register, waitConnected, waitFor } from '../../../helpers/upstreams.js';
import type { ApiClient } from '../../../helpers/api-client.js';
import { keyId, loadMasterKey, SecretBox } from '../../../../src/lib/secret-box.js';
import { rotateMasterKey } from '../../../../src/services/operations/master-key-rotation.js';

const PG_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Runs a Connect as a browser would: Toolgate's authorization URL, the AS's redirect, Toolgate's callback. */
async function connect(client: ApiClient, serverId: string): Promise<Response> {
  const started = await client.post(`/api/v1/users/me/upstream-connections/${serverId}/connect`);
  expect(started.status, started.text).to.equal(200);
  const approved = await fetch(started.body.authorization_url, { redirect: 'manual' });
  expect(approved.status).to.equal(302);
  return fetch(approved.headers.get('location')!, { redirect: 'manual' });
}

describe('upstream servers behind OAuth', function () {
  this.timeout(120000);
  let t: TestServer;
  let dcrAs: FakeAuthorizationServer;
  let dcrMcp: ProtectedMcpServer;
  let preAs: FakeAuthorizationServer;
  let preMcp: ProtectedMcpServer;
  let admin: TestUser;
  let a: TestUser;
  let b: TestUser;
  let perUserId: string;
  let endpointA: string;
  let endpointB: string;

  before(async () => {
    dcrAs = await new FakeAuthorizationServer({ dcr: true, tokenDelayMs: 100 }).start();
    dcrMcp = await new ProtectedMcpServer(dcrAs).start();
    preAs = await new FakeAuthorizationServer({
      preRegistered: { clientId: 'toolgate-pre', clientSecret: 'pre-secret-value-1234', method: 'client_secret_post' },
    }).start();
    preMcp = await new ProtectedMcpServer(preAs).start();
    t = await startTestServer({ env: LOOPBACK_UPSTREAMS });
    admin = await createUser(t, 'admin');
    // Admins so they create bundles themselves: a bundle key acts for the bundle's creator.
    a = await createUser(t, 'admin');
    b = await createUser(t, 'admin');
  });
  after(async () => {
    await t?.stop();
    await Promise.all([dcrMcp?.close(), dcrAs?.close(), preMcp?.close(), preAs?.close()]);
  });

  describe('POST /api/v1/servers with auth_mode oauth_per_user (an AS with DCR)', () => {
    it('registers it and shows needs_authorization, not error, while nobody has connected', async () => {
      const server = await register(admin.client, {
        name: 'dcr-upstream',
        transport: 'streamable_http',
        url: dcrMcp.url,
        auth_mode: 'oauth_per_user',
      });
      perUserId = server.id;
      expect(server.auth_mode).to.equal('oauth_per_user');
      expect(server.oauth).to.deep.equal({ client_id: null, has_client_secret: false, token_endpoint_auth_method: null, scopes: [] });
      const got = await waitFor('needs_authorization', async () => {
        const res = await admin.client.get(`/api/v1/servers/${perUserId}`);
        return res.body.status === 'needs_authorization' ? res.body : false;
      });
      expect(got.last_error).to.equal(null);
    });

    it('answers 422 for auth_mode on a stdio server', async () => {
      const res = await admin.client.post('/api/v1/servers', {
        name: 'stdio-oauth',
        transport: 'stdio',
        command: 'node',
        auth_mode: 'oauth_per_user',
      });
      expect(res.status).to.equal(422);
    });

    it('connects a user: discovery, DCR once, PKCE, resource on every request, iss checked; the server turns connected', async () => {
      const done = await connect(a.client, perUserId);
      expect(done.status).to.equal(302);
      expect(done.headers.get('location')).to.match(/\/connections\?connected=/);
      expect(dcrAs.counts.registrations).to.equal(1);
      expect(dcrAs.counts.codeGrants).to.equal(1);
      expect(dcrAs.resources.length).to.be.greaterThan(1);
      expect(new Set(dcrAs.resources)).to.deep.equal(new Set([dcrMcp.url]));
      // The admin has no token: the server is connected on A's connection.
      await waitConnected(admin.client, perUserId, 1);
    });

    it('answers 400 to a callback whose state was already used', async () => {
      const started = await b.client.post(`/api/v1/users/me/upstream-connections/${perUserId}/connect`);
      const approved = await fetch(started.body.authorization_url, { redirect: 'manual' });
      const callback = approved.headers.get('location')!;
      expect((await fetch(callback, { redirect: 'manual' })).status).to.equal(302);
      const again = await fetch(callback, { redirect: 'manual' });
      expect(again.status).to.equal(400);
      expect(((await again.json()) as { code: string }).code).to.equal('invalid_state');
    });

    it('answers 400 when iss is not the issuer recorded at the start (RFC 9207), before redeeming the code', async () => {
      const grants = dcrAs.counts.codeGrants;
      const started = await b.client.post(`/api/v1/users/me/upstream-connections/${perUserId}/connect`);
      const approved = await fetch(started.body.authorization_url, { redirect: 'manual' });
      const callback = new URL(approved.headers.get('location')!);
      callback.searchParams.set('iss', 'https://evil.example');
      const res = await fetch(callback, { redirect: 'manual' });
      expect(res.status).to.equal(400);
      expect(dcrAs.counts.codeGrants).to.equal(grants);
    });
  });

  describe('tools/call of users A and B on the same server', () => {
    before(async () => {
      endpointA = await bundleOf(t, a, perUserId);
      endpointB = await bundleOf(t, b, perUserId);
    });

    it('carries each user own token: the upstream sees two different tokens and subjects', async () => {
      const before = dcrMcp.seen.length;
      const ra = await whoami(endpointA);
      const rb = await whoami(endpointB);
      expect(ra.result.content[0].text).to.not.equal(rb.result.content[0].text);
      const calls = dcrMcp.seen.slice(before).filter((s) => s.method === 'tools/call');
      expect(calls).to.have.length(2);
      expect(calls[0]!.token).to.not.equal(calls[1]!.token);
      expect(calls[0]!.subject).to.equal(ra.result.content[0].text);
    });

    it('never reads a resource or prompt of a per-user server on the shared connection (it carries another user token)', async () => {
      const pool = t.server.services.pool;
      const refused = (p: Promise<unknown>) =>
        p.then(
          () => 'served',
          (err: Error) => err.message,
        );
      expect(await refused(pool.readResource(perUserId, 'test://anything'))).to.equal(
        'This server authorizes each user: only its tools are served',
      );
      expect(await refused(pool.getPrompt(perUserId, 'anything', {}))).to.equal(
        'This server authorizes each user: only its tools are served',
      );
    });

    it('gives a user with no connection an error whose message and data carry the Connect link', async () => {
      const c = await createUser(t, 'admin');
      const endpoint = await bundleOf(t, c, perUserId);
      const res = await whoami(endpoint);
      expect(res.error.code).to.equal(-32006);
      expect(res.error.data.reason).to.equal('upstream_authorization_required');
      expect(res.error.data.authorization_url).to.equal(`${t.url}/connections?server=${perUserId}`);
      expect(res.error.message).to.include(res.error.data.authorization_url);
    });

    it('gives a client that declared URL-mode elicitation a URLElicitationRequiredError (-32042) with the link', async () => {
      const c = await createUser(t, 'admin');
      const endpoint = await bundleOf(t, c, perUserId);
      const init = await mcpFetch(endpoint, {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: { elicitation: { url: {} } }, clientInfo: { name: 't', version: '1' } },
        },
      });
      const headers = { 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' };
      await mcpFetch(endpoint, { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers });
      const res = responseOf(
        await mcpFetch(endpoint, {
          body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
          headers,
        }),
      );
      expect(res.error.code).to.equal(-32042);
      const [elicitation] = res.error.data.elicitations;
      expect(elicitation.mode).to.equal('url');
      expect(elicitation.url).to.equal(`${t.url}/connections?server=${perUserId}`);
      expect(elicitation.elicitationId).to.be.a('string');
    });

    it('refreshes an expired token without the user (resource sent), and the call goes through', async () => {
      const row = await t.server.services.stores.upstreamOAuth.token({ serverId: perUserId, userId: a.id });
      await t.server.services.stores.upstreamOAuth.updateToken(row!.id, { expires_at: new Date(Date.now() - 1000) });
      dcrAs.expireAccessTokens();
      const refreshes = dcrAs.counts.refreshGrants;
      const res = await whoami(endpointA);
      expect(res.result.content[0].text).to.match(/^subject-/);
      expect(dcrAs.counts.refreshGrants).to.equal(refreshes + 1);
      expect(dcrAs.resources.at(-2)).to.equal(dcrMcp.url);
    });

    it('refreshes one token once when two calls find it expired at the same time', async () => {
      const row = await t.server.services.stores.upstreamOAuth.token({ serverId: perUserId, userId: a.id });
      await t.server.services.stores.upstreamOAuth.updateToken(row!.id, { expires_at: new Date(Date.now() - 1000) });
      const refreshes = dcrAs.counts.refreshGrants;
      const vault = t.server.services.upstreamConnections;
      const [x, y] = await Promise.all([vault.credential(perUserId, a.id), vault.credential(perUserId, a.id)]);
      expect(x.kind).to.equal('token');
      expect(y.kind).to.equal('token');
      expect(dcrAs.counts.refreshGrants).to.equal(refreshes + 1);
    });

    it('lists the caller connections and the admins view per user, never a token', async () => {
      const mine = await a.client.get('/api/v1/users/me/upstream-connections');
      expect(mine.status).to.equal(200);
      const entry = mine.body.items.find((i: { server_id: string }) => i.server_id === perUserId);
      expect(entry.status).to.equal('connected');
      expect(entry.issuer).to.equal(dcrAs.issuer);
      expect(Date.parse(entry.expires_at)).to.be.greaterThan(Date.now());
      const perUser = await admin.client.get(`/api/v1/servers/${perUserId}/connections`);
      expect(perUser.status).to.equal(200);
      expect(perUser.body.items.map((i: { user_email: string }) => i.user_email)).to.include.members([a.email, b.email]);
      expect((await (await createUser(t, 'member')).client.get(`/api/v1/servers/${perUserId}/connections`)).status).to.equal(403);
      const text = JSON.stringify([mine.body, perUser.body]);
      for (const token of dcrAs.tokens.keys()) expect(text).to.not.include(token);
    });

    it('gives the Connect link again when the refresh is refused (invalid_grant)', async () => {
      dcrAs.revokeRefreshTokens();
      const row = await t.server.services.stores.upstreamOAuth.token({ serverId: perUserId, userId: b.id });
      await t.server.services.stores.upstreamOAuth.updateToken(row!.id, { expires_at: new Date(Date.now() - 1000) });
      const res = await whoami(endpointB);
      expect(res.error.code).to.equal(-32006);
      expect(res.error.message).to.include('expired');
      const mine = await b.client.get('/api/v1/users/me/upstream-connections');
      expect(mine.body.items.find((i: { server_id: string }) => i.server_id === perUserId).status).to.equal('needs_consent');
    });

    it('lets a user revoke their connection (204, then 404)', async () => {
      const revoked = await b.client.delete(`/api/v1/users/me/upstream-connections/${perUserId}`);
      expect(revoked.status, revoked.text).to.equal(204);
      expect((await b.client.delete(`/api/v1/users/me/upstream-connections/${perUserId}`)).status).to.equal(404);
    });

    it('never writes a token in a log line', () => {
      const logs = capturedLogs.join('');
      for (const token of dcrAs.tokens.keys()) expect(logs).to.not.include(token);
    });

    it('deletes a user tokens when the user is deactivated', async () => {
      const before = await t.server.services.stores.upstreamOAuth.tokensOfUser(a.id);
      expect(before).to.have.length(1);
      const res = await t.owner.patch(`/api/v1/users/${a.id}`, { is_active: false });
      expect(res.status, res.text).to.equal(200);
      expect(await t.server.services.stores.upstreamOAuth.tokensOfUser(a.id)).to.have.length(0);
    });
  });

  describe('a pre-registered client (an AS without DCR)', () => {
    let preId: string;

    it('keeps the client secret sealed and write-only', async () => {
      const server = await register(admin.client, {
        name: 'pre-upstream',
        transport: 'streamable_http',
        url: preMcp.url,
        auth_mode: 'oauth_per_user',
        oauth: { client_id: 'toolgate-pre', client_secret: 'pre-secret-value-1234', token_endpoint_auth_method: 'client_secret_post' },
      });
      preId = server.id;
      expect(server.oauth).to.deep.equal({
        client_id: 'toolgate-pre',
        has_client_secret: true,
        token_endpoint_auth_method: 'client_secret_post',
        scopes: [],
      });
      expect(JSON.stringify(server)).to.not.include('pre-secret-value-1234');
      const stored = await t.server.services.stores.servers.findById(preId);
      expect(stored!.oauth_client_secret_sealed).to.match(/^v1\./);
    });

    it('connects with it (no registration) and calls through', async () => {
      const c = await createUser(t, 'admin');
      expect((await connect(c.client, preId)).status).to.equal(302);
      expect(preAs.counts.codeGrants).to.equal(1);
      await waitConnected(admin.client, preId, 1);
      const res = await whoami(await bundleOf(t, c, preId));
      expect(res.result.content[0].text).to.match(/^subject-/);
    });

    it('deletes its tokens with the server', async () => {
      expect((await admin.client.delete(`/api/v1/servers/${preId}`)).status).to.equal(204);
      expect(await t.server.services.stores.upstreamOAuth.discoveryToken(preId)).to.equal(undefined);
    });
  });

  describe('auth_mode oauth_shared with a confidential pre-registered client', () => {
    it('connects by client credentials without anybody, and every caller uses the shared token', async () => {
      const server = await register(admin.client, {
        name: 'shared-upstream',
        transport: 'streamable_http',
        url: preMcp.url,
        auth_mode: 'oauth_shared',
        oauth: { client_id: 'toolgate-pre', client_secret: 'pre-secret-value-1234', token_endpoint_auth_method: 'client_secret_post' },
      });
      await waitConnected(admin.client, server.id, 1);
      const c = await createUser(t, 'admin');
      const res = await whoami(await bundleOf(t, c, server.id));
      expect(res.result.content[0].text).to.equal('client:toolgate-pre');
      expect(preAs.counts.clientCredentialGrants).to.equal(1);
    });

    it('lets only admins connect a shared server by consent (403 for members)', async () => {
      const server = await register(admin.client, {
        name: 'shared-consent',
        transport: 'streamable_http',
        url: dcrMcp.url,
        auth_mode: 'oauth_shared',
      });
      const member = await createUser(t, 'member');
      const res = await member.client.post(`/api/v1/users/me/upstream-connections/${server.id}/connect`);
      expect(res.status).to.equal(403);
    });
  });

  describe('scope step-up on 403 insufficient_scope', () => {
    let stepAs: FakeAuthorizationServer;
    let stepMcp: ProtectedMcpServer;
    before(async () => {
      stepAs = await new FakeAuthorizationServer({ dcr: true }).start();
      stepMcp = await new ProtectedMcpServer(stepAs, 'tools.write').start();
    });
    after(() => Promise.all([stepMcp?.close(), stepAs?.close()]));

    it('asks the user to connect again, then asks for the union of scopes once, and the call goes through', async () => {
      const server = await register(admin.client, {
        name: 'step-up',
        transport: 'streamable_http',
        url: stepMcp.url,
        auth_mode: 'oauth_per_user',
      });
      const c = await createUser(t, 'admin');
      expect((await connect(c.client, server.id)).status).to.equal(302);
      await waitConnected(admin.client, server.id, 1);
      const endpoint = await bundleOf(t, c, server.id);
      const first = await whoami(endpoint);
      expect(first.error.code).to.equal(-32006);
      expect(first.error.data.authorization_url).to.equal(`${t.url}/connections?server=${server.id}`);
      const started = await c.client.post(`/api/v1/users/me/upstream-connections/${server.id}/connect`);
      expect(new URL(started.body.authorization_url).searchParams.get('scope')!.split(' ').sort()).to.deep.equal([
        'tools.read',
        'tools.write',
      ]);
      const approved = await fetch(started.body.authorization_url, { redirect: 'manual' });
      expect((await fetch(approved.headers.get('location')!, { redirect: 'manual' })).status).to.equal(302);
      const second = await whoami(endpoint);
      expect(second.result, JSON.stringify(second.error)).to.not.equal(undefined);
      expect(second.result.content[0].text).to.match(/^subject-/);
    });
  });

  describe('master-key rotation', () => {
    it('re-encrypts the vault and the registered client secrets; the tokens open under the new key', async () => {
      const c = await createUser(t, 'admin');
      expect((await connect(c.client, perUserId)).status).to.equal(302);
      const current = loadMasterKey(undefined, t.config.dataDir);
      const next = randomBytes(32);
      const report = await rotateMasterKey(t.server.services.tx, { current, next });
      const vault = report.columns.find((col) => col.table === 'upstream_oauth_tokens' && col.column === 'access_token_sealed');
      expect(vault!.rewritten).to.be.greaterThan(0);
      const dcr = report.columns.find((col) => col.table === 'upstream_oauth_clients');
      expect(dcr!.rewritten).to.be.greaterThan(0);
      const row = await t.server.services.stores.upstreamOAuth.token({ serverId: perUserId, userId: c.id });
      expect(SecretBox.keyIdOf(row!.access_token_sealed)).to.equal(keyId(next));
      const token = new SecretBox(next).open(row!.access_token_sealed);
      expect(dcrAs.tokens.get(token)?.resource).to.equal(dcrMcp.url);
    });
  });

  describe('GET /api/v1/upstream-oauth/client-metadata.json', () => {
    it('serves the client ID metadata document whose client_id is its own URL', async () => {
      const res = await t.anon.get('/api/v1/upstream-oauth/client-metadata.json');
      expect(res.status).to.equal(200);
      expect(res.body.client_id).to.equal(`${t.url}/api/v1/upstream-oauth/client-metadata.json`);
      expect(res.body.redirect_uris).to.deep.equal([`${t.url}/api/v1/upstream-oauth/callback`]);
    });
  });
});

describe('upstream OAuth on two instances sharing one PostgreSQL database', function () {
  this.timeout(120000);
  let one: TestServer;
  let two: TestServer;
  let as: FakeAuthorizationServer;
  let mcp: ProtectedMcpServer;

  before(async () => {
    as = await new FakeAuthorizationServer({ dcr: true, tokenDelayMs: 300 }).start();
    mcp = await new ProtectedMcpServer(as).start();
    const env = {
      ...LOOPBACK_UPSTREAMS,
      DATABASE_URL: PG_URL,
      TOOLGATE_DB_SCHEMA: `tg_oauth2_${process.pid}_${Date.now() % 100000}`,
      TOOLGATE_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    one = await startTestServer({ env });
    two = await startTestServer({ env, noBootstrap: true, keepData: true });
  });
  after(async () => {
    await two?.stop();
    await one?.stop();
    await Promise.all([mcp?.close(), as?.close()]);
  });

  it('refreshes one token once when both instances find it expired at the same time', async () => {
    const user = await createUser(one, 'member');
    const server = await register(one.owner, {
      name: 'shared-db',
      transport: 'streamable_http',
      url: mcp.url,
      auth_mode: 'oauth_per_user',
    });
    expect((await connect(user.client, server.id)).status).to.equal(302);
    const row = await one.server.services.stores.upstreamOAuth.token({ serverId: server.id, userId: user.id });
    await one.server.services.stores.upstreamOAuth.updateToken(row!.id, { expires_at: new Date(Date.now() - 1000) });
    const [x, y] = await Promise.all([
      one.server.services.upstreamConnections.credential(server.id, user.id),
      two.server.services.upstreamConnections.credential(server.id, user.id),
    ]);
    expect(x.kind).to.equal('token');
    expect(y.kind).to.equal('token');
    expect(as.counts.refreshGrants).to.equal(1);
  });
});
