import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ApiClient, type ApiResponse, type RequestOptions } from '../helpers/api-client.js';
import { createUser } from '../helpers/identity.js';
import { containsSecret, seedSecret } from '../helpers/secrets.js';
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
 * cookie).
 */
describe('no secret leaks into responses or logs', function () {
  this.timeout(90000);
  let t: TestServer;
  let idp: TestOidcProvider;
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
    t = await startTestServer({ env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1', TOOLGATE_LOG_LEVEL: 'debug' } });
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
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

    // A member probing admin operations with secrets in the body.
    const member = await createUser(t, 'member');
    seed(member.key, -1);
    const probe = canary('probe');
    seed(probe, -1);
    await new RecordingClient(t.url, member.key, recorded).post('/api/v1/settings/auth/providers', { ...provider, client_secret: probe });
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
