import { expect } from 'chai';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../../helpers/test-upstreams.js';
import { containsSecret, secretsInCapturedLogs } from '../../../helpers/secrets.js';
import {
  REDIRECT_URI,
  authorizeAndApprove,
  consentRequestId,
  decide,
  pkcePair,
  registerClient,
  tokenRequest,
} from '../../../helpers/oauth-client.js';

/** An MCP initialize on `url` with a bearer token; answers the HTTP status and the challenge header. */
async function initialize(url: string, token?: string): Promise<{ status: number; challenge: string | null }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await res.body?.cancel();
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}

describe('Toolgate as the OAuth authorization server of /mcp/gateway', () => {
  let t: TestServer;
  let base: string;
  let gateway: string;
  let user: TestUser;
  let bundleId: string;
  /** The wall clock, moved forward on demand (token expiry). */
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };

  before(async () => {
    const upstreams = new TestUpstreams();
    t = await startTestServer({ clock, start: { upstreams } });
    base = t.url;
    gateway = `${base}/mcp/gateway`;
    user = await createUser(t, 'admin');
    const gh = putFixtureServer(t.server.services.catalog, 'github', [{ name: 'create_issue', description: 'Open an issue' }]);
    const created = await t.owner.post('/api/v1/bundles', { name: 'Dev', tools: [{ tool_id: gh.tools.create_issue!.id }] });
    bundleId = created.body.id;
  });
  after(() => t?.stop());

  /** A registered client, an approved authorization and its redeemed tokens. */
  async function connect(resource = gateway, who: TestUser = user): Promise<{ clientId: string; access: string; refresh: string }> {
    const { body } = await registerClient(base);
    const pkce = pkcePair();
    const back = await authorizeAndApprove(base, who.client, {
      response_type: 'code',
      client_id: body.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      resource,
      scope: 'mcp',
      state: 'st',
    });
    const tokens = await tokenRequest(base, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      code_verifier: pkce.verifier,
      client_id: body.client_id,
      redirect_uri: REDIRECT_URI,
      resource,
    });
    expect(tokens.status).to.equal(200);
    return { clientId: body.client_id, access: tokens.body.access_token, refresh: tokens.body.refresh_token };
  }

  describe('metadata', () => {
    it('serves RFC 9728 protected resource metadata for /mcp/gateway, path-suffixed and at the root', async () => {
      for (const path of ['/.well-known/oauth-protected-resource/mcp/gateway', '/.well-known/oauth-protected-resource']) {
        const res = await fetch(`${base}${path}`);
        expect(res.status).to.equal(200);
        expect(await res.json()).to.deep.include({
          resource: gateway,
          authorization_servers: [base],
          scopes_supported: ['mcp'],
          bearer_methods_supported: ['header'],
        });
      }
    });

    it('serves metadata for one bundle through the gateway, and 404 for an unknown bundle', async () => {
      const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp/gateway/bundles/${bundleId}`);
      expect(((await res.json()) as { resource: string }).resource).to.equal(`${gateway}/bundles/${bundleId}`);
      expect((await fetch(`${base}/.well-known/oauth-protected-resource/mcp/gateway/bundles/nope`)).status).to.equal(404);
    });

    it('serves RFC 8414 and OpenID discovery metadata with S256 only, registration, CIMD and iss support', async () => {
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const body = await (await fetch(`${base}${path}`)).json();
        expect(body).to.deep.include({
          issuer: base,
          authorization_endpoint: `${base}/oauth/authorize`,
          token_endpoint: `${base}/oauth/token`,
          registration_endpoint: `${base}/oauth/register`,
          revocation_endpoint: `${base}/oauth/revoke`,
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
          client_id_metadata_document_supported: true,
          authorization_response_iss_parameter_supported: true,
        });
      }
    });
  });

  describe('challenges on /mcp/gateway', () => {
    it('answers 401 with the resource metadata and the scope when no credential is sent', async () => {
      const { status, challenge } = await initialize(gateway);
      expect(status).to.equal(401);
      expect(challenge).to.include(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp/gateway"`);
      expect(challenge).to.include('scope="mcp"');
    });

    it('answers 403 insufficient_scope for an API key without the mcp scope', async () => {
      const narrow = await createUser(t, 'member', { scopes: ['api:read'] });
      const { status, challenge } = await initialize(gateway, narrow.key);
      expect(status).to.equal(403);
      expect(challenge).to.include('error="insufficient_scope"').and.include('scope="mcp"');
    });

    it('still accepts user API keys', async () => {
      expect((await initialize(gateway, user.key)).status).to.equal(200);
    });
  });

  describe('the authorization code flow', () => {
    it('issues tokens bound to /mcp/gateway that work there and nowhere else', async () => {
      const { access } = await connect();
      expect((await initialize(gateway, access)).status).to.equal(200);
      const elsewhere = await initialize(`${gateway}/bundles/${bundleId}`, access);
      expect(elsewhere.status).to.equal(401);
      expect(elsewhere.challenge).to.include('error="invalid_token"');
      // Nor on the REST API.
      expect((await fetch(`${base}/api/v1/users/me`, { headers: { authorization: `Bearer ${access}` } })).status).to.equal(401);
    });

    it('binds a token to one bundle through the gateway', async () => {
      const { access } = await connect(`${gateway}/bundles/${bundleId}`);
      expect((await initialize(`${gateway}/bundles/${bundleId}`, access)).status).to.equal(200);
      expect((await initialize(gateway, access)).status).to.equal(401);
    });

    it('refuses a wrong PKCE verifier, then a reused code (and revokes what the code opened)', async () => {
      const { body } = await registerClient(base);
      const pkce = pkcePair();
      const params = {
        response_type: 'code',
        client_id: body.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        resource: gateway,
      };
      const back = await authorizeAndApprove(base, user.client, params);
      const code = back.searchParams.get('code')!;
      const form = { grant_type: 'authorization_code', code, client_id: body.client_id, redirect_uri: REDIRECT_URI };
      const wrong = await tokenRequest(base, { ...form, code_verifier: pkcePair().verifier });
      expect(wrong).to.deep.include({ status: 400 });
      expect(wrong.body.error).to.equal('invalid_grant');
      const good = await tokenRequest(base, { ...form, code_verifier: pkce.verifier });
      expect(good.status).to.equal(200);
      expect(good.body).to.include({ token_type: 'Bearer', scope: 'mcp', expires_in: 900 });
      const again = await tokenRequest(base, { ...form, code_verifier: pkce.verifier });
      expect(again.status).to.equal(400);
      expect(again.body.error).to.equal('invalid_grant');
      expect((await initialize(gateway, good.body.access_token)).status).to.equal(401);
    });

    it('refuses a token request for another resource than the authorization', async () => {
      const { body } = await registerClient(base);
      const pkce = pkcePair();
      const back = await authorizeAndApprove(base, user.client, {
        response_type: 'code',
        client_id: body.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkce.challenge,
        code_challenge_method: 'S256',
        resource: gateway,
      });
      const res = await tokenRequest(base, {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        code_verifier: pkce.verifier,
        client_id: body.client_id,
        redirect_uri: REDIRECT_URI,
        resource: `${gateway}/bundles/${bundleId}`,
      });
      expect(res.body.error).to.equal('invalid_target');
    });

    it('requires PKCE S256 and the resource parameter, with iss and state in the error redirect', async () => {
      const { body } = await registerClient(base);
      const url = new URL(`${base}/oauth/authorize`);
      for (const [k, v] of Object.entries({
        response_type: 'code',
        client_id: body.client_id,
        redirect_uri: REDIRECT_URI,
        state: 'x1',
        resource: gateway,
      }))
        url.searchParams.set(k, v);
      const noPkce = await fetch(url, { redirect: 'manual' });
      const back = new URL(noPkce.headers.get('location')!);
      expect(back.searchParams.get('error')).to.equal('invalid_request');
      expect(back.searchParams.get('state')).to.equal('x1');
      expect(back.searchParams.get('iss')).to.equal(base);
      url.searchParams.set('code_challenge', pkcePair().challenge);
      url.searchParams.set('code_challenge_method', 'plain');
      expect(new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!).searchParams.get('error')).to.equal(
        'invalid_request',
      );
      url.searchParams.set('code_challenge_method', 'S256');
      url.searchParams.delete('resource');
      expect(new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!).searchParams.get('error')).to.equal(
        'invalid_target',
      );
    });

    it('returns the state unchanged so a client detects a mismatch, and denies with access_denied', async () => {
      const { body } = await registerClient(base);
      const url = new URL(`${base}/oauth/authorize`);
      const params = {
        response_type: 'code',
        client_id: body.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        resource: gateway,
        state: 'expected-state',
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const back = await decide(user.client, await consentRequestId(url), false);
      expect(back.searchParams.get('error')).to.equal('access_denied');
      expect(back.searchParams.get('state')).to.equal('expected-state');
      expect(back.searchParams.get('state')).to.not.equal('forged-state');
      expect(back.searchParams.get('iss')).to.equal(base);
    });

    it('refuses a redirect URI that is not registered without redirecting, and accepts any loopback port', async () => {
      const { body } = await registerClient(base);
      const url = new URL(`${base}/oauth/authorize`);
      const params = {
        response_type: 'code',
        client_id: body.client_id,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        resource: gateway,
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      url.searchParams.set('redirect_uri', 'https://evil.example.com/callback');
      const refused = await fetch(url, { redirect: 'manual' });
      expect(refused.status).to.equal(400);
      expect(refused.headers.get('location')).to.equal(null);
      url.searchParams.set('redirect_uri', 'http://127.0.0.1:50123/callback');
      const other = await fetch(url, { redirect: 'manual' });
      expect(other.status).to.equal(302);
      expect(other.headers.get('location')).to.include('/oauth/consent?request=');
    });

    it('registers private-use schemes and refuses javascript: and plain http redirect URIs', async () => {
      expect((await registerClient(base, { redirect_uris: ['vscode://toolgate/callback', 'cursor://auth/cb'] })).status).to.equal(201);
      for (const bad of ['javascript:alert(1)', 'http://example.com/cb', 'https://x.example/cb#frag']) {
        const res = await registerClient(base, { redirect_uris: [bad] });
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal('invalid_redirect_uri');
      }
    });
  });

  describe('refresh, expiry and revocation', () => {
    it('rotates the refresh token on every use, and a reused one revokes the whole family', async () => {
      const { clientId, refresh } = await connect();
      const first = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId });
      expect(first.status).to.equal(200);
      expect(first.body.refresh_token).to.not.equal(refresh);
      expect((await initialize(gateway, first.body.access_token)).status).to.equal(200);
      const replay = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId });
      expect(replay.status).to.equal(400);
      expect(replay.body.error).to.equal('invalid_grant');
      expect((await initialize(gateway, first.body.access_token)).status).to.equal(401);
      const next = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: clientId });
      expect(next.body.error).to.equal('invalid_grant');
    });

    it('refuses an expired access token', async () => {
      const { access } = await connect();
      offsetMs = 901_000;
      try {
        const { status, challenge } = await initialize(gateway, access);
        expect(status).to.equal(401);
        expect(challenge).to.include('error="invalid_token"');
      } finally {
        offsetMs = 0;
      }
    });

    it('revokes by RFC 7009 (a refresh token ends the connection)', async () => {
      const { clientId, access, refresh } = await connect();
      const res = await fetch(`${base}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: refresh, client_id: clientId }).toString(),
      });
      expect(res.status).to.equal(200);
      expect((await initialize(gateway, access)).status).to.equal(401);
    });

    it('lets a person list and revoke their connected apps; the token fails on the next request', async () => {
      const { access } = await connect();
      const list = await user.client.get('/api/v1/users/me/oauth-grants');
      expect(list.status).to.equal(200);
      const grant = list.body.items[0];
      expect(grant).to.include({ user_id: user.id, resource: gateway });
      expect((await user.client.delete(`/api/v1/users/me/oauth-grants/${grant.id}`)).status).to.equal(204);
      expect((await initialize(gateway, access)).status).to.equal(401);
      const activity = await t.owner.get('/api/v1/dashboard/activity');
      expect(JSON.stringify(activity.body)).to.include('oauth_grant.revoke').and.include('oauth_grant.create');
    });

    it("lets an admin list and revoke anyone's connected apps; a member sees only their own", async () => {
      const member = await createUser(t, 'member');
      const { access } = await connect(gateway, member);
      const mine = await member.client.get('/api/v1/users/me/oauth-grants');
      expect(mine.body.items.every((g: any) => g.user_id === member.id)).to.equal(true);
      expect((await member.client.get('/api/v1/oauth/grants')).status).to.equal(403);
      const all = await t.owner.get(`/api/v1/oauth/grants?user_id=${member.id}`);
      expect(all.body.items).to.have.length(1);
      expect((await t.owner.delete(`/api/v1/oauth/grants/${all.body.items[0].id}`)).status).to.equal(204);
      expect((await initialize(gateway, access)).status).to.equal(401);
    });

    it("stops a deactivated user's tokens on the next request", async () => {
      const member = await createUser(t, 'member');
      const { access, clientId, refresh } = await connect(gateway, member);
      expect((await initialize(gateway, access)).status).to.equal(200);
      expect((await t.owner.patch(`/api/v1/users/${member.id}`, { is_active: false })).status).to.equal(200);
      expect((await initialize(gateway, access)).status).to.equal(401);
      expect((await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId })).body.error).to.equal(
        'invalid_grant',
      );
    });
  });

  describe('clients', () => {
    it('answers invalid_client for a deleted client and revokes its connections', async () => {
      const { clientId, access, refresh } = await connect();
      expect((await t.owner.delete(`/api/v1/oauth/clients/${encodeURIComponent(clientId)}`)).status).to.equal(204);
      const res = await tokenRequest(base, { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId });
      expect(res.status).to.equal(401);
      expect(res.body.error).to.equal('invalid_client');
      expect((await initialize(gateway, access)).status).to.equal(401);
    });

    it('lets admins pre-register clients', async () => {
      const created = await t.owner.post('/api/v1/oauth/clients', { name: 'Corp IDE', redirect_uris: ['vscode://corp/cb'] });
      expect(created.status).to.equal(201);
      expect(created.body).to.include({ kind: 'admin', status: 'active', application_type: 'native' });
      const list = await t.owner.get('/api/v1/oauth/clients');
      expect(list.body.items.map((c: any) => c.client_id)).to.include(created.body.client_id);
    });

    it('follows the registration policy: admin approval holds new clients, off refuses and leaves the metadata without an endpoint', async () => {
      expect((await t.owner.put('/api/v1/settings/general', { oauth_client_registration: 'admin_approval' })).status).to.equal(200);
      try {
        const held = await registerClient(base);
        expect(held.status).to.equal(201);
        const url = new URL(`${base}/oauth/authorize`);
        for (const [k, v] of Object.entries({
          response_type: 'code',
          client_id: held.body.client_id,
          redirect_uri: REDIRECT_URI,
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
          resource: gateway,
        }))
          url.searchParams.set(k, v);
        expect((await fetch(url, { redirect: 'manual' })).status).to.equal(400);
        expect((await t.owner.post(`/api/v1/oauth/clients/${held.body.client_id}/approve`)).body.status).to.equal('active');
        expect((await fetch(url, { redirect: 'manual' })).status).to.equal(302);
        expect((await t.owner.put('/api/v1/settings/general', { oauth_client_registration: 'off' })).status).to.equal(200);
        expect((await registerClient(base)).status).to.equal(403);
        const meta = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
        expect(meta).to.not.have.property('registration_endpoint');
      } finally {
        await t.owner.put('/api/v1/settings/general', { oauth_client_registration: 'open' });
      }
    });
  });

  describe('secrets', () => {
    it('never puts a token or a code in a log line, the activity log or a connected-apps answer', async () => {
      const { access, refresh } = await connect();
      expect((await initialize(gateway, access)).status).to.equal(200);
      expect(secretsInCapturedLogs()).to.deep.equal([]);
      const answers = [
        (await t.owner.get('/api/v1/dashboard/activity?page_size=100')).text,
        (await t.owner.get('/api/v1/oauth/grants')).text,
        (await user.client.get('/api/v1/users/me/oauth-grants')).text,
      ].join('\n');
      for (const secret of [access, refresh]) expect(containsSecret(answers, secret)).to.equal(false);
      expect(answers).to.not.match(/tgo[acr]_/);
    });
  });
});
