import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ApiClient, type ApiResponse, type RequestOptions } from '../helpers/api-client.js';
import { createUser } from '../helpers/identity.js';
import { containsSecret, seedSecret } from '../helpers/secrets.js';
import { FakeOpenAi } from '../helpers/fake-openai.js';
import { mcpFetch, modernRequest } from '../helpers/mcp-http.js';
import { putFixtureServer } from '../helpers/test-upstreams.js';
import { TestOidcProvider } from '../helpers/oidc-provider.js';
import { capturedLogs, startTestServer, type TestServer } from '../helpers/test-server.js';

/** One response as the client saw it: status line, every header, the body. */
interface Recorded {
  what: string;
  text: string;
}

/** An ApiClient that keeps every response it receives. */
class RecordingClient extends ApiClient {
  constructor(
    baseUrl: string,
    token: string | undefined,
    private readonly sink: Recorded[],
  ) {
    super(baseUrl, token);
  }
  override as(token: string | undefined): RecordingClient {
    return new RecordingClient(this.baseUrl, token, this.sink);
  }
  override async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const res = await super.request<T>(method, path, options);
    const headers = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
    this.sink.push({ what: `${method} ${path.split('?')[0]} → ${res.status}`, text: `${res.status}\n${headers}\n\n${res.text}` });
    return res;
  }
}

const hits = containsSecret;

/**
 * The secret-leak oracle: canary secrets go into every secret field identity owns (OAuth client
 * secrets, API keys, invitation tokens, session tokens, the provider's tokens); then every response
 * body and header of a broad workload, and the log output of the whole run, are scanned for them
 * in plain, base64, hex and URL-encoded forms. The only allowed appearance of a secret is the one
 * response that hands it out (key creation/rotation, invitation creation, the login callback's
 * cookie). The admin activity feed (and the activity log table itself) is part of the scan.
 */
describe('no secret leaks into responses or logs', function () {
  this.timeout(90000);
  let t: TestServer;
  let idp: TestOidcProvider;
  let fakeAi: FakeOpenAi;
  const recorded: Recorded[] = [];
  /** Secret → the one response (index in `recorded`) allowed to carry it, or -1 for none. */
  const secrets = new Map<string, number>();
  const seed = (secret: string, allowedAt: number): void => {
    secrets.set(secret, allowedAt);
    seedSecret(secret);
  };
  const canary = (label: string): string => `canary-${label}-${randomBytes(12).toString('hex')}`;

  before(async () => {
    idp = await new TestOidcProvider().start();
    fakeAi = await new FakeOpenAi().start();
    t = await startTestServer({ env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*', TOOLGATE_LOG_LEVEL: 'debug' } });
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
    await fakeAi?.stop();
  });

  it('runs a workload over every secret-bearing operation', async () => {
    const owner = new RecordingClient(t.url, t.ownerKey, recorded);
    const anon = owner.as(undefined);
    seed(t.ownerKey, -1);

    // OAuth client secrets: create, duplicate, oversized, replace.
    const clientSecret = canary('client-secret');
    seed(clientSecret, -1);
    idp.clients.set('leak-client', { secret: clientSecret, redirectUris: [`${t.url}/api/v1/auth/callback/oidc`] });
    const provider = {
      provider_type: 'oidc',
      display_name: 'SSO',
      client_id: 'leak-client',
      client_secret: clientSecret,
      config: { discovery_url: idp.discoveryUrl },
    };
    expect((await owner.post('/api/v1/settings/auth/providers', provider)).status).to.equal(201);
    expect((await owner.post('/api/v1/settings/auth/providers', provider)).status).to.equal(409);
    const tooLong = `${canary('long-secret')}${'x'.repeat(4100)}`;
    seed(tooLong.slice(0, 40), -1);
    expect(
      (await owner.post('/api/v1/settings/auth/providers', { ...provider, provider_type: 'other', client_secret: tooLong })).status,
    ).to.equal(422);
    const ghSecret = canary('gh-secret');
    seed(ghSecret, -1);
    expect(
      (
        await owner.post('/api/v1/settings/auth/providers', {
          provider_type: 'github',
          display_name: 'GH',
          client_id: 'g',
          client_secret: ghSecret,
        })
      ).status,
    ).to.equal(201);
    const ghSecret2 = canary('gh-secret-2');
    seed(ghSecret2, -1);
    expect((await owner.patch('/api/v1/settings/auth/providers/github', { client_secret: ghSecret2, display_order: -1 })).status).to.equal(
      422,
    );
    expect((await owner.patch('/api/v1/settings/auth/providers/github', { client_secret: ghSecret2 })).status).to.equal(200);
    await owner.get('/api/v1/settings/auth/providers');
    await anon.get('/api/v1/auth/providers');

    // API keys: created (allowed once), used, rotated, revoked, reused.
    const created = await owner.post('/api/v1/users/me/api-keys', { name: 'leak' });
    seed(created.body.key, recorded.length - 1);
    const key = owner.as(created.body.key);
    await key.get('/api/v1/users/me');
    await key.get('/api/v1/users/me/api-keys');
    await key.get(`/api/v1/users/me/api-keys/${created.body.id}`);
    await key.get('/api/v1/users/me/api-keys?page_size=1000');
    const rotated = await owner.post(`/api/v1/users/me/api-keys/${created.body.id}/rotate`, { grace_period_seconds: 60 });
    seed(rotated.body.new_key.key, recorded.length - 1);
    await owner.as(rotated.body.new_key.key).get('/api/v1/users/me');
    await owner.delete(`/api/v1/users/me/api-keys/${rotated.body.new_key.id}`);
    expect((await owner.as(rotated.body.new_key.key).get('/api/v1/users/me')).status).to.equal(401);
    const bogus = `tg_usr_live_${randomBytes(32).toString('base64url')}`;
    seed(bogus, -1);
    expect((await owner.as(bogus).get('/api/v1/users/me')).status).to.equal(401);
    const malformed = canary('malformed-bearer');
    seed(malformed, -1);
    expect((await owner.as(malformed).post('/api/v1/users/me/api-keys', { name: malformed })).status).to.equal(401);

    // Invitation tokens: created (allowed once), looked up, used to log in, revoked.
    const invite = await owner.post('/api/v1/invitations', { email: 'leaky@partner.example' });
    seed(invite.body.token, recorded.length - 1);
    await anon.get(`/api/v1/invitations/accept/${invite.body.token}`);
    await owner.get('/api/v1/invitations');
    const invite2 = await owner.post('/api/v1/invitations', { email: 'revoked@partner.example' });
    seed(invite2.body.token, recorded.length - 1);
    await owner.delete(`/api/v1/invitations/${invite2.body.id}`);
    expect((await anon.get(`/api/v1/invitations/accept/${invite2.body.token}`)).status).to.equal(404);

    // Login: state cookie, authorization code, provider tokens, session cookie (allowed once).
    idp.nextUser = { sub: 'leaky', email: 'leaky@partner.example', email_verified: true };
    const start = await anon.get(`/api/v1/auth/login/oidc?invitation=${encodeURIComponent(invite.body.token)}`);
    expect(start.status).to.equal(302);
    const state = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('tg_oauth_state='))!
      .split(';')[0]!;
    const atIdp = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const cb = new URL(atIdp.headers.get('location')!);
    seed(cb.searchParams.get('code')!, -1);
    const done = await anon.get(`${cb.pathname}${cb.search}`, { cookie: state });
    expect(done.status).to.equal(302);
    const session = done.headers
      .getSetCookie()
      .find((c) => c.startsWith('access_token='))!
      .split(';')[0]!;
    seed(session.slice('access_token='.length), recorded.length - 1);
    await anon.get('/api/v1/users/me', { cookie: session });
    await anon.post('/api/v1/auth/logout', undefined, { cookie: session });
    expect((await anon.get('/api/v1/users/me', { cookie: session })).status).to.equal(401);

    // AI provider keys: create, duplicate, oversized, replace, tested while the vendor echoes the key, listed, used.
    const aiKey = canary('ai-key');
    seed(aiKey, -1);
    const aiProvider = { provider_type: 'llm', provider: 'openai_compatible', model: 'gpt-test', api_key: aiKey, endpoint: fakeAi.url };
    const aiCreated = await owner.post('/api/v1/settings/providers', aiProvider);
    expect(aiCreated.status).to.equal(201);
    expect((await owner.post('/api/v1/settings/providers', aiProvider)).status).to.equal(409);
    const aiTooLong = `${canary('ai-long')}${'k'.repeat(4100)}`;
    seed(aiTooLong.slice(0, 40), -1);
    expect((await owner.post('/api/v1/settings/providers', { ...aiProvider, model: 'other', api_key: aiTooLong })).status).to.equal(422);
    fakeAi.reply('chat', { status: 401, error: { message: `Incorrect API key provided: ${aiKey}` } });
    const aiTest = await owner.post(`/api/v1/settings/providers/${aiCreated.body.id}/test`);
    expect(aiTest.body.ok).to.equal(false);
    const aiKey2 = canary('ai-key-2');
    seed(aiKey2, -1);
    expect(
      (await owner.patch(`/api/v1/settings/providers/${aiCreated.body.id}`, { api_key: aiKey2, config: { max_retries: 99 } })).status,
    ).to.equal(422);
    expect((await owner.patch(`/api/v1/settings/providers/${aiCreated.body.id}`, { api_key: aiKey2 })).status).to.equal(200);
    expect((await owner.post(`/api/v1/settings/providers/${aiCreated.body.id}/test`)).body.ok).to.equal(true);
    expect(fakeAi.requestsTo('/chat/completions').at(-1)!.headers.authorization).to.equal(`Bearer ${aiKey2}`);
    await owner.get('/api/v1/settings/providers');
    await (await t.server.services.aiProviders.llm()).chat({ messages: [{ role: 'user', content: 'hello' }] });

    // Upstream server secrets (headers, secret env), the registry token, bundle keys: written
    // through admin operations that each leave an activity entry.
    const headerSecret = canary('header');
    const envSecret = canary('secret-env');
    const registryToken = canary('registry-token');
    for (const x of [headerSecret, envSecret, registryToken]) seed(x, -1);
    const httpServer = await owner.post('/api/v1/servers', {
      name: 'leak-http',
      transport: 'streamable_http',
      url: 'http://127.0.0.1:1/mcp',
      headers: { Authorization: `Bearer ${headerSecret}` },
      enabled: false,
    });
    expect(httpServer.status).to.equal(201);
    const envSecret2 = canary('secret-env-2');
    seed(envSecret2, -1);
    const stdioServer = await owner.post('/api/v1/servers', {
      name: 'leak-stdio',
      transport: 'stdio',
      command: 'node',
      args: ['-e', '0'],
      secret_env: { API_TOKEN: envSecret },
      enabled: false,
    });
    expect(stdioServer.status).to.equal(201);
    expect((await owner.patch(`/api/v1/servers/${stdioServer.body.id}`, { secret_env: { API_TOKEN: envSecret2 } })).status).to.equal(200);
    expect((await owner.put('/api/v1/settings/general', { registry_token: registryToken })).status).to.equal(200);
    const bundle = await owner.post('/api/v1/bundles', { name: 'leak-bundle' });
    seed(bundle.body.bundle_key, recorded.length - 1);
    const regenerated = await owner.post(`/api/v1/bundles/${bundle.body.id}/regenerate-key`);
    seed(regenerated.body.bundle_key, recorded.length - 1);

    // Guardrail interceptor signing secrets: created, refused (422), replaced, listed.
    const hookSecret = canary('interceptor-secret');
    const hookSecret2 = canary('interceptor-secret-2');
    for (const x of [hookSecret, hookSecret2]) seed(x, -1);
    const hook = { name: 'leak-hook', url: 'https://hooks.example.com/tg', secret: hookSecret, phases: ['before'], failure_mode: 'open' };
    const createdHook = await owner.post('/api/v1/interceptors', hook);
    expect(createdHook.status).to.equal(201);
    expect((await owner.post('/api/v1/interceptors', { ...hook, name: 'leak-hook-2', url: 'http://10.0.0.1/x' })).status).to.equal(422);
    expect((await owner.patch(`/api/v1/interceptors/${createdHook.body.id}`, { secret: hookSecret2 })).status).to.equal(200);
    await owner.get('/api/v1/interceptors');
    await owner.get(`/api/v1/interceptors/${createdHook.body.id}`);
    expect((await owner.delete(`/api/v1/interceptors/${createdHook.body.id}`)).status).to.equal(204);

    // The activity feed of everything above (and the raw log table, as a response would carry it).
    for (const filter of ['all', 'admin', 'errors']) {
      const feed = await owner.get(`/api/v1/dashboard/activity?activity_filter=${filter}`);
      expect(feed.status).to.equal(200);
    }
    const adminFeed = await owner.get('/api/v1/dashboard/activity?activity_filter=admin');
    expect(adminFeed.body.items.length).to.be.greaterThan(15);
    await owner.get('/api/v1/dashboard');
    const rows = await t.server.services.db.knex('activity_log').select('*');
    recorded.push({ what: 'the activity_log table', text: JSON.stringify(rows) });

    // A member probing admin operations with secrets in the body.
    const member = await createUser(t, 'member');
    seed(member.key, -1);
    const probe = canary('probe');
    seed(probe, -1);
    await new RecordingClient(t.url, member.key, recorded).post('/api/v1/settings/auth/providers', { ...provider, client_secret: probe });

    // The gateway endpoint: keys on /mcp/gateway (good, revoked, bogus), search with an embedding
    // provider whose vendor echoes the provider key in its errors, execute.
    const embedKey = canary('embed-key');
    seed(embedKey, -1);
    fakeAi.respond('embeddings', () => ({ status: 401, error: { message: `Incorrect API key provided: ${embedKey}` } }));
    const { tools } = putFixtureServer(t.server.services.catalog, 'leaky', [{ name: 'echo' }, { name: 'lookup' }]);
    await owner.post('/api/v1/bundles', { name: 'Leaky', tools: [{ tool_id: tools.echo!.id }, { tool_id: tools.lookup!.id }] });
    const embedder = {
      provider_type: 'embedding',
      provider: 'openai_compatible',
      model: 'embed-test',
      api_key: embedKey,
      endpoint: fakeAi.url,
    };
    expect((await owner.post('/api/v1/settings/providers', embedder)).status).to.equal(201);
    await owner.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute' });
    const search = t.server.mcp.search;
    for (let i = 0; i < 100 && search.embeddingStatus().model === null; i++) await new Promise((r) => setTimeout(r, 20));
    await search.whenEmbedded();
    expect(fakeAi.requestsTo('/embeddings').length, 'the search tried the embedding provider').to.be.greaterThan(0);
    const gatewayCall = async (token: string, method: string, params: Record<string, unknown> = {}) => {
      const { headers, body } = modernRequest(method, params);
      const reply = await mcpFetch(`${t.url}/mcp/gateway`, { body, headers: { ...headers, authorization: `Bearer ${token}` } });
      const head = [...reply.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
      recorded.push({ what: `POST /mcp/gateway ${method} → ${reply.status}`, text: `${reply.status}\n${head}\n\n${reply.text}` });
      return reply;
    };
    expect((await gatewayCall(t.ownerKey, 'tools/list')).status).to.equal(200);
    expect((await gatewayCall(t.ownerKey, 'tools/call', { name: 'search', arguments: { query: 'echo lookup' } })).status).to.equal(200);
    await gatewayCall(t.ownerKey, 'tools/call', { name: 'execute', arguments: { name: 'echo', arguments: { note: 'hi' } } });
    expect((await gatewayCall(rotated.body.new_key.key, 'tools/list')).status).to.equal(401);
    expect((await gatewayCall(bogus, 'tools/list')).status).to.equal(401);
    expect((await gatewayCall(member.key, 'tools/list')).status).to.equal(200);

    await t.server.services.apiKeyAuth.flushUsage();
    expect(recorded.length).to.be.greaterThan(30);
  });

  it('finds 0 secrets in any response body or header, except the one response that hands each out', () => {
    const leaks: string[] = [];
    recorded.forEach((r, i) => {
      for (const [secret, allowedAt] of secrets)
        if (i !== allowedAt && hits(r.text, secret)) leaks.push(`${r.what} carries ${secret.slice(0, 20)}…`);
    });
    expect(leaks, leaks.join('\n')).to.deep.equal([]);
  });

  it('finds 0 secrets in the captured log output of the whole run', () => {
    const logs = capturedLogs.join('');
    expect(logs.length).to.be.greaterThan(1000);
    const leaks = [...secrets.keys()].filter((s) => hits(logs, s)).map((s) => s.slice(0, 20));
    expect(leaks).to.deep.equal([]);
  });
});
