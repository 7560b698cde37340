import { expect } from 'chai';
import { ManualClock } from '../../../../src/lib/clock.js';
import { ApiClient } from '../../../helpers/api-client.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { TestOidcProvider, type OidcUser } from '../../../helpers/oidc-provider.js';
import { seedSecret } from '../../../helpers/secrets.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';

const CLIENT_ID = 'toolgate-test';
const CLIENT_SECRET = seedSecret('oidc-client-secret-canary-7f3a');

/** The outcome of one browser sign-in. */
interface LoginResult {
  status: number;
  location: string | null;
  setCookies: string[];
  /** `access_token=<value>` when a session cookie was set. */
  cookie: string | undefined;
  body: any;
}

function cookieValue(setCookies: string[], name: string): string | undefined {
  const c = setCookies.find((s) => s.startsWith(`${name}=`));
  return c ? c.split(';')[0]!.slice(name.length + 1) : undefined;
}

describe('OAuth login against an OpenID Connect provider on loopback', function () {
  this.timeout(60000);
  let t: TestServer;
  let idp: TestOidcProvider;
  let clock: ManualClock;
  let admin: TestUser;

  /** Plays the browser: start at Toolgate, follow the provider, come back to the callback. */
  async function login(
    user: OidcUser,
    options: { invitation?: string; redirectTo?: string; provider?: string } = {},
  ): Promise<LoginResult> {
    idp.nextUser = user;
    const qs = new URLSearchParams();
    if (options.invitation) qs.set('invitation', options.invitation);
    if (options.redirectTo) qs.set('redirect_to', options.redirectTo);
    const start = await t.anon.get(`/api/v1/auth/login/${options.provider ?? 'oidc'}?${qs}`);
    if (start.status !== 302) return { status: start.status, location: null, setCookies: [], cookie: undefined, body: start.body };
    const stateCookie = cookieValue(start.headers.getSetCookie(), 'tg_oauth_state');
    const atIdp = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const callback = new URL(atIdp.headers.get('location')!);
    const path = `${callback.pathname}${callback.search}`;
    const res = await t.anon.get(path, { cookie: `tg_oauth_state=${stateCookie}` });
    const setCookies = res.headers.getSetCookie();
    const token = cookieValue(setCookies, 'access_token');
    return {
      status: res.status,
      location: res.headers.get('location'),
      setCookies,
      cookie: token ? `access_token=${token}` : undefined,
      body: res.body,
    };
  }

  before(async () => {
    clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
    idp = await new TestOidcProvider().start();
    t = await startTestServer({ clock, env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*' } });
    idp.clients.set(CLIENT_ID, { secret: CLIENT_SECRET, redirectUris: [`${t.url}/api/v1/auth/callback/oidc`] });
    admin = await createUser(t, 'admin');
    const created = await admin.client.post('/api/v1/settings/auth/providers', {
      provider_type: 'oidc',
      display_name: 'Company SSO',
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      config: { discovery_url: idp.discoveryUrl },
    });
    expect(created.status).to.equal(201);
    await admin.client.patch('/api/v1/settings/auth', { allowed_domains: ['corp.example'], admin_emails: ['chief@elsewhere.example'] });
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  it('lists the enabled provider on the login page', async () => {
    const res = await t.anon.get('/api/v1/auth/providers');
    expect(res.status).to.equal(200);
    expect(res.body.items).to.deep.equal([{ provider_type: 'oidc', display_name: 'Company SSO' }]);
  });

  it('starts with a redirect carrying PKCE S256, state and nonce, and a sealed HttpOnly state cookie', async () => {
    const res = await t.anon.get('/api/v1/auth/login/oidc?redirect_to=/bundles');
    expect(res.status).to.equal(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin).to.equal(idp.issuer);
    expect(location.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(location.searchParams.get('code_challenge')).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('state')).to.have.length.greaterThan(20);
    expect(location.searchParams.get('nonce')).to.have.length.greaterThan(20);
    expect(location.searchParams.get('redirect_uri')).to.equal(`${t.url}/api/v1/auth/callback/oidc`);
    const stateCookie = res.headers.getSetCookie().find((c) => c.startsWith('tg_oauth_state='))!;
    expect(stateCookie)
      .to.match(/HttpOnly/)
      .and.match(/SameSite=Lax/)
      .and.match(/Path=\/api\/v1\/auth\/callback/);
    // The PKCE verifier is inside the cookie, sealed: it does not appear in clear.
    expect(stateCookie).to.not.include(location.searchParams.get('state')!);
  });

  it('signs in a new user of an allowed domain: session cookie, redirect, member role, PKCE verified by the provider', async () => {
    const result = await login(
      { sub: 'sub-ann', email: 'ann@corp.example', email_verified: true, name: 'Ann' },
      { redirectTo: '/bundles' },
    );
    expect(result.status, JSON.stringify(result.body)).to.equal(302);
    expect(result.location).to.equal('/bundles');
    const session = result.setCookies.find((c) => c.startsWith('access_token='))!;
    expect(session)
      .to.match(/HttpOnly/)
      .and.match(/SameSite=Lax/)
      .and.match(/Max-Age=86400/);
    expect(session).to.not.match(/Secure/); // plain http here; Secure when TOOLGATE_PUBLIC_URL is https
    expect(idp.tokenRequests.at(-1)!.get('code_verifier')).to.match(/^[A-Za-z0-9_-]{43,128}$/);
    const me = await t.anon.get('/api/v1/users/me', { cookie: result.cookie! });
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ email: 'ann@corp.example', name: 'Ann', role: 'member', auth_provider: 'oidc' });
    expect(me.body.last_login_at).to.be.a('string');
  });

  it('signs the same person in again as the same user (linked by provider subject)', async () => {
    const again = await login({ sub: 'sub-ann', email: 'ann@corp.example', email_verified: true, name: 'Ann' });
    expect(again.status).to.equal(302);
    const me = await t.anon.get('/api/v1/users/me', { cookie: again.cookie! });
    const users = await admin.client.get('/api/v1/users?search=ann@corp.example');
    expect(users.body.total).to.equal(1);
    expect(me.body.id).to.equal(users.body.items[0].id);
  });

  it('signs in concurrent first logins of one new person as one user (the losing insert links instead of failing)', async () => {
    const person = { sub: 'sub-race', email: 'race@corp.example', email_verified: true, name: 'Race' };
    const results = await Promise.all([1, 2, 3, 4].map(() => login(person)));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).to.equal(302);
    const users = await admin.client.get('/api/v1/users?search=race@corp.example');
    expect(users.body.total).to.equal(1);
  });

  it('links an existing user by email (the bootstrap owner keeps the owner role)', async () => {
    const result = await login({ sub: 'sub-owner', email: 'OWNER@example.com', email_verified: true });
    expect(result.status).to.equal(302);
    const me = await t.anon.get('/api/v1/users/me', { cookie: result.cookie! });
    expect(me.body).to.include({ email: 'owner@example.com', role: 'owner', auth_provider: 'oidc' });
  });

  it('makes an admin email an admin on first sign-in', async () => {
    const result = await login({ sub: 'sub-chief', email: 'chief@elsewhere.example', email_verified: true });
    expect(result.status).to.equal(302);
    const me = await t.anon.get('/api/v1/users/me', { cookie: result.cookie! });
    expect(me.body.role).to.equal('admin');
    expect((await t.anon.get('/api/v1/settings/auth', { cookie: result.cookie! })).status).to.equal(200);
  });

  it('answers 403 to an email outside the allowed domains without an invitation, and creates no user', async () => {
    const result = await login({ sub: 'sub-eve', email: 'eve@evil.example', email_verified: true });
    expect(result.status).to.equal(403);
    expect(result.body.code).to.equal('email_not_allowed');
    expect(result.cookie).to.equal(undefined);
    expect((await admin.client.get('/api/v1/users?search=evil.example')).body.total).to.equal(0);
  });

  it('answers 403 to an unverified email and to a deactivated user', async () => {
    const unverified = await login({ sub: 'sub-unv', email: 'unv@corp.example', email_verified: false });
    expect(unverified.status).to.equal(403);
    expect(unverified.body.code).to.equal('email_not_verified');
    const bob = await login({ sub: 'sub-bob', email: 'bob@corp.example', email_verified: true });
    const bobId = (await t.anon.get('/api/v1/users/me', { cookie: bob.cookie! })).body.id;
    expect((await admin.client.delete(`/api/v1/users/${bobId}`)).status).to.equal(204);
    // The open session stops at once, and signing in again is refused.
    expect((await t.anon.get('/api/v1/users/me', { cookie: bob.cookie! })).status).to.equal(401);
    const again = await login({ sub: 'sub-bob', email: 'bob@corp.example', email_verified: true });
    expect(again.status).to.equal(403);
    expect(again.body.code).to.equal('user_deactivated');
  });

  it('answers 400 for a missing or mismatched state, a missing state cookie, a reused code and a provider error', async () => {
    idp.nextUser = { sub: 'sub-x', email: 'x@corp.example', email_verified: true };
    const start = await t.anon.get('/api/v1/auth/login/oidc');
    const stateCookie = `tg_oauth_state=${cookieValue(start.headers.getSetCookie(), 'tg_oauth_state')}`;
    const atIdp = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const cb = new URL(atIdp.headers.get('location')!);
    const code = cb.searchParams.get('code')!;
    const state = cb.searchParams.get('state')!;
    const base = '/api/v1/auth/callback/oidc';
    const cases: [string, string | undefined, string][] = [
      [`${base}?code=${code}`, stateCookie, 'oauth_invalid_callback'],
      [`${base}?code=${code}&state=wrong`, stateCookie, 'oauth_invalid_state'],
      [`${base}?code=${code}&state=${state}`, undefined, 'oauth_invalid_state'],
      [`${base}?code=${code}&state=${state}`, 'tg_oauth_state=v1.tampered.x.y.z', 'oauth_invalid_state'],
      [`${base}?error=access_denied&error_description=no`, stateCookie, 'oauth_provider_error'],
    ];
    for (const [path, cookie, codeWanted] of cases) {
      const res = await t.anon.get(path, cookie ? { cookie } : {});
      expect(res.status, path).to.equal(400);
      expect(res.body.code, path).to.equal(codeWanted);
    }
    const ok = await t.anon.get(`${base}?code=${code}&state=${state}`, { cookie: stateCookie });
    expect(ok.status).to.equal(302);
    const reused = await t.anon.get(`${base}?code=${code}&state=${state}`, { cookie: stateCookie });
    expect(reused.status).to.equal(400);
    expect(reused.body.code).to.equal('oauth_invalid_code');
  });

  it('answers 502 when the provider’s token endpoint fails', async () => {
    idp.failTokenEndpoint = true;
    try {
      const result = await login({ sub: 'sub-y', email: 'y@corp.example', email_verified: true });
      expect(result.status).to.equal(502);
      expect(result.body.code).to.equal('bad_gateway');
    } finally {
      idp.failTokenEndpoint = false;
    }
  });

  it('answers 404 for an unknown or disabled provider, and 422 for an absolute redirect_to', async () => {
    expect((await t.anon.get('/api/v1/auth/login/nope')).status).to.equal(404);
    expect((await t.anon.get('/api/v1/auth/login/oidc?redirect_to=https://evil.example/')).status).to.equal(422);
    expect((await t.anon.get('/api/v1/auth/login/oidc?redirect_to=//evil.example/')).status).to.equal(422);
  });

  it('gives the session the auth settings’ lifetime; it expires on the clock', async () => {
    await admin.client.patch('/api/v1/settings/auth', { access_token_expire_minutes: 30 });
    try {
      const result = await login({ sub: 'sub-kim', email: 'kim@corp.example', email_verified: true });
      expect(result.setCookies.find((c) => c.startsWith('access_token='))).to.match(/Max-Age=1800/);
      expect((await t.anon.get('/api/v1/users/me', { cookie: result.cookie! })).status).to.equal(200);
      clock.advance(30 * 60_000);
      const expired = await t.anon.get('/api/v1/users/me', { cookie: result.cookie! });
      expect(expired.status).to.equal(401);
      expect(expired.body.code).to.equal('invalid_session');
    } finally {
      await admin.client.patch('/api/v1/settings/auth', { access_token_expire_minutes: 1440 });
    }
  });

  it('POST /api/v1/auth/logout ends the session and clears the cookie', async () => {
    const result = await login({ sub: 'sub-lee', email: 'lee@corp.example', email_verified: true });
    const res = await t.anon.post('/api/v1/auth/logout', undefined, { cookie: result.cookie! });
    expect(res.status).to.equal(204);
    expect(res.headers.getSetCookie().find((c) => c.startsWith('access_token='))).to.match(/^access_token=;.*Max-Age=0/);
    expect((await t.anon.get('/api/v1/users/me', { cookie: result.cookie! })).status).to.equal(401);
  });

  it('refuses a forged or altered session cookie with 401', async () => {
    const result = await login({ sub: 'sub-mo', email: 'mo@corp.example', email_verified: true });
    const value = result.cookie!.slice('access_token='.length);
    const [v, id, exp, mac] = value.split('.');
    const longer = `access_token=${v}.${id}.${Number(exp) + 86400}.${mac}`;
    expect((await t.anon.get('/api/v1/users/me', { cookie: longer })).status).to.equal(401);
    expect((await new ApiClient(t.url).get('/api/v1/users/me', { cookie: 'access_token=garbage' })).status).to.equal(401);
  });
});
