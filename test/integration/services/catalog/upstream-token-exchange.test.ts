import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { FakeAuthorizationServer, ProtectedMcpServer } from '../../../fixtures/oauth-upstream.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { bundleOf, whoami } from '../../../helpers/upstream-oauth.js';
import { capturedLogs, LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { register, waitConnected, waitFor } from '../../../helpers/upstreams.js';

describe('upstream OAuth: token exchange and client authentication', function () {
  this.timeout(120000);
  let t: TestServer;
  let admin: TestUser;

  before(async () => {
    t = await startTestServer({ env: LOOPBACK_UPSTREAMS });
    admin = await createUser(t, 'admin');
  });
  after(() => t?.stop());

  describe('GET /oauth/jwks', () => {
    it('publishes one ES256 public key, named in the authorization server metadata, and no private part', async () => {
      const res = await fetch(`${t.url}/oauth/jwks`);
      expect(res.status).to.equal(200);
      const jwks = (await res.json()) as { keys: Record<string, unknown>[] };
      expect(jwks.keys).to.have.length(1);
      expect(jwks.keys[0]).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(jwks.keys[0]).to.not.have.property('d');
      const metadata = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(metadata.jwks_uri).to.equal(`${t.url}/oauth/jwks`);
    });
  });

  describe('POST /api/v1/servers with auth_mode oauth_token_exchange (RFC 8693)', () => {
    let as: FakeAuthorizationServer;
    let mcp: ProtectedMcpServer;
    let serverId: string;
    let a: TestUser;
    let b: TestUser;
    let endpointA: string;
    let endpointB: string;

    before(async () => {
      as = await new FakeAuthorizationServer({
        preRegistered: { clientId: 'toolgate-exchange', clientSecret: 'exchange-secret-5678', method: 'client_secret_basic' },
      }).start();
      // The upstream's authorization server trusts Toolgate as an identity provider: its issuer and JWKS.
      as.trust(t.url, `${t.url}/oauth/jwks`);
      mcp = await new ProtectedMcpServer(as).start();
      a = await createUser(t, 'admin');
      b = await createUser(t, 'admin');
    });
    after(() => Promise.all([mcp?.close(), as?.close()]));

    it('answers 422 without the client Toolgate is at the upstream authorization server', async () => {
      const res = await admin.client.post('/api/v1/servers', {
        name: 'exchange-no-client',
        transport: 'streamable_http',
        url: mcp.url,
        auth_mode: 'oauth_token_exchange',
      });
      expect(res.status).to.equal(422);
    });

    it('connects without anybody: the catalog sync uses a token exchanged for the owner', async () => {
      const server = await register(admin.client, {
        name: 'exchange-upstream',
        transport: 'streamable_http',
        url: mcp.url,
        auth_mode: 'oauth_token_exchange',
        oauth: { client_id: 'toolgate-exchange', client_secret: 'exchange-secret-5678' },
      });
      serverId = server.id;
      expect(server.auth_mode).to.equal('oauth_token_exchange');
      await waitConnected(admin.client, serverId, 1);
      expect(as.counts.tokenExchanges).to.equal(1);
      const owner = await t.server.services.stores.users.findByEmail('owner@example.com');
      expect(as.subjectTokens[0]!.sub).to.equal(owner!.id);
    });

    it('gives users A and B their own exchanged tokens: the upstream sees two tokens with their own subjects', async () => {
      endpointA = await bundleOf(t, a, serverId);
      endpointB = await bundleOf(t, b, serverId);
      const before = mcp.seen.length;
      const ra = await whoami(endpointA);
      const rb = await whoami(endpointB);
      expect(ra.result.content[0].text).to.equal(`user:${a.id}`);
      expect(rb.result.content[0].text).to.equal(`user:${b.id}`);
      const calls = mcp.seen.slice(before).filter((s) => s.method === 'tools/call');
      expect(calls).to.have.length(2);
      expect(calls[0]!.token).to.not.equal(calls[1]!.token);
      // Each subject token: Toolgate as issuer, the user as subject, the upstream's authorization server as audience.
      const claims = as.subjectTokens.slice(-2);
      expect(claims.map((c) => c.sub)).to.deep.equal([a.id, b.id]);
      expect(claims[0]).to.include({ iss: t.url, aud: as.issuer, email: a.email });
      expect((claims[0]!.exp as number) - (claims[0]!.iat as number)).to.equal(300);
      // resource = the upstream, on the exchange as on every token request.
      expect(as.resources.at(-1)).to.equal(mcp.url);
    });

    it('keeps the exchanged token per user in the vault until it expires, then exchanges again', async () => {
      const exchanges = as.counts.tokenExchanges;
      expect((await whoami(endpointA)).result.content[0].text).to.equal(`user:${a.id}`);
      expect(as.counts.tokenExchanges).to.equal(exchanges);
      const row = await t.server.services.stores.upstreamOAuth.token({ serverId, userId: a.id });
      expect(row!.access_token_sealed).to.match(/^v1\./);
      expect(row!.refresh_token_sealed).to.equal(null);
      await t.server.services.stores.upstreamOAuth.updateToken(row!.id, { expires_at: new Date(Date.now() - 1000) });
      expect((await whoami(endpointA)).result.content[0].text).to.equal(`user:${a.id}`);
      expect(as.counts.tokenExchanges).to.equal(exchanges + 1);
    });

    it('exchanges once for concurrent first calls of one user, and every call gets through', async () => {
      const c = await createUser(t, 'admin');
      const endpointC = await bundleOf(t, c, serverId);
      const exchanges = as.counts.tokenExchanges;
      const answers = await Promise.all(Array.from({ length: 6 }, () => whoami(endpointC)));
      for (const r of answers) expect(r.result.content[0].text).to.equal(`user:${c.id}`);
      expect(as.counts.tokenExchanges).to.equal(exchanges + 1);
    });

    it('answers 409 to a Connect: nobody consents in this mode', async () => {
      const res = await a.client.post(`/api/v1/users/me/upstream-connections/${serverId}/connect`);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('server_token_exchange');
    });

    it('never writes an exchanged token or the client secret in a response or a log line', async () => {
      const view = await admin.client.get(`/api/v1/servers/${serverId}`);
      const text = JSON.stringify(view.body) + capturedLogs.join('');
      expect(text).to.not.include('exchange-secret-5678');
      for (const token of as.tokens.keys()) expect(text).to.not.include(token);
    });
  });

  describe('auth_mode oauth_shared with client credentials', () => {
    it('authenticates with private_key_jwt (a signed assertion) and calls through', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
      const as = await new FakeAuthorizationServer({
        preRegistered: {
          clientId: 'toolgate-jwt',
          clientSecret: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
          method: 'private_key_jwt',
        },
      }).start();
      const mcp = await new ProtectedMcpServer(as).start();
      try {
        const bad = await admin.client.post('/api/v1/servers', {
          name: 'jwt-bad-key',
          transport: 'streamable_http',
          url: mcp.url,
          auth_mode: 'oauth_shared',
          oauth: { client_id: 'toolgate-jwt', client_secret: 'not a key', token_endpoint_auth_method: 'private_key_jwt' },
        });
        expect(bad.status).to.equal(422);
        expect(bad.text).to.not.include('not a key');
        const server = await register(admin.client, {
          name: 'jwt-shared',
          transport: 'streamable_http',
          url: mcp.url,
          auth_mode: 'oauth_shared',
          oauth: { client_id: 'toolgate-jwt', client_secret: pem, token_endpoint_auth_method: 'private_key_jwt' },
        });
        expect(server.oauth).to.include({ has_client_secret: true, token_endpoint_auth_method: 'private_key_jwt' });
        expect(JSON.stringify(server)).to.not.include('PRIVATE KEY');
        await waitConnected(admin.client, server.id, 1);
        const c = await createUser(t, 'admin');
        expect((await whoami(await bundleOf(t, c, server.id))).result.content[0].text).to.equal('client:toolgate-jwt');
        expect(as.counts.clientCredentialGrants).to.equal(1);
      } finally {
        await Promise.all([mcp.close(), as.close()]);
      }
    });

    it('authenticates with client_secret_basic at a server that compares the header without decoding it', async () => {
      const as = await new FakeAuthorizationServer({
        preRegistered: { clientId: 'pre-registered-client', clientSecret: 'pre-registered-secret', method: 'client_secret_basic' },
        literalBasic: true,
      }).start();
      const mcp = await new ProtectedMcpServer(as).start();
      try {
        const server = await register(admin.client, {
          name: 'basic-literal',
          transport: 'streamable_http',
          url: mcp.url,
          auth_mode: 'oauth_shared',
          oauth: { client_id: 'pre-registered-client', client_secret: 'pre-registered-secret' },
        });
        await waitConnected(admin.client, server.id, 1);
        expect(as.counts.clientCredentialGrants).to.equal(1);
      } finally {
        await Promise.all([mcp.close(), as.close()]);
      }
    });
  });

  describe('an OAuth server whose shared connection is refused (401)', () => {
    it('stops offering that connection and shows needs_authorization, not error', async () => {
      const as = await new FakeAuthorizationServer({ dcr: true }).start();
      const mcp = await new ProtectedMcpServer(as).start();
      try {
        const server = await register(admin.client, {
          name: 'refused-shared',
          transport: 'streamable_http',
          url: mcp.url,
          auth_mode: 'oauth_per_user',
        });
        const user = await createUser(t, 'admin');
        const started = await user.client.post(`/api/v1/users/me/upstream-connections/${server.id}/connect`);
        const approved = await fetch(started.body.authorization_url, { redirect: 'manual' });
        expect((await fetch(approved.headers.get('location')!, { redirect: 'manual' })).status).to.equal(302);
        await waitConnected(admin.client, server.id, 1);
        // The upstream no longer accepts the token (revoked, or its authorization server changed).
        as.tokens.clear();
        t.server.services.pool.reconnect(server.id, 'test');
        const view = await waitFor('needs_authorization', async () => {
          const res = await admin.client.get(`/api/v1/servers/${server.id}`);
          return res.body.status === 'needs_authorization' ? res.body : false;
        });
        expect(view.status).to.equal('needs_authorization');
        const row = await t.server.services.stores.upstreamOAuth.token({ serverId: server.id, userId: user.id });
        expect(row!.status).to.equal('needs_consent');
      } finally {
        await Promise.all([mcp.close(), as.close()]);
      }
    });
  });
});
