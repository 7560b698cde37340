import { expect } from 'chai';
import { ManualClock } from '../../../../src/lib/clock.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { capturedLogs, startTestServer, type TestServer } from '../../../helpers/test-server.js';

const SESSION = '/api/v1/auth/session';

/** The `access_token` cookie of a response, as `name=value` for a Cookie header. */
function sessionCookie(headers: Headers): { cookie: string; setCookie: string } {
  const setCookie = headers.getSetCookie().find((c) => c.startsWith('access_token=')) ?? '';
  return { cookie: setCookie.split(';')[0]!, setCookie };
}

describe('POST /api/v1/auth/session (sign in with an API key)', function () {
  this.timeout(60000);
  let t: TestServer;
  let clock: ManualClock;
  let admin: TestUser;

  before(async () => {
    clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
    t = await startTestServer({ clock });
    admin = await createUser(t, 'admin');
  });
  after(async () => {
    await t?.stop();
  });

  it('answers 200 with the user and an HttpOnly access_token cookie that authenticates later requests', async () => {
    const res = await t.anon.post(SESSION, { api_key: admin.key });
    expect(res.status).to.equal(200);
    expect(res.body.user).to.include({ id: admin.id, email: admin.email, role: 'admin' });
    const { cookie, setCookie } = sessionCookie(res.headers);
    expect(setCookie).to.match(/^access_token=s1\./);
    expect(setCookie).to.include('HttpOnly').and.include('SameSite=Lax').and.include('Path=/');
    expect(setCookie).to.match(/Max-Age=86400/);
    expect(res.text).to.not.include(admin.key);
    expect(res.text).to.not.include(cookie.slice('access_token='.length));
    const me = await t.anon.get('/api/v1/users/me', { cookie });
    expect(me.status).to.equal(200);
    expect(me.body.id).to.equal(admin.id);
    const row = await t.server.services.db.knex('sessions').where({ user_id: admin.id }).first();
    expect(row.auth_provider).to.equal('api_key');
    expect(JSON.stringify(row)).to.not.include(admin.key);
  });

  it('opens a session that logout ends', async () => {
    const res = await t.anon.post(SESSION, { api_key: admin.key });
    const { cookie } = sessionCookie(res.headers);
    const out = await t.anon.post('/api/v1/auth/logout', undefined, { cookie });
    expect(out.status).to.equal(204);
    const me = await t.anon.get('/api/v1/users/me', { cookie });
    expect(me.status).to.equal(401);
  });

  it('refuses a cookie-authenticated change sent from another origin (403 cross_site_request); reads, own origin, allowed origins and API keys pass', async () => {
    const { cookie } = sessionCookie((await t.anon.post(SESSION, { api_key: admin.key })).headers);
    const change = (headers: Record<string, string>, auth: { cookie?: string; api?: boolean } = { cookie }) =>
      (auth.api ? admin.client : t.anon).request('POST', '/api/v1/users/me/api-keys', {
        body: { name: `k-${Math.random().toString(36).slice(2, 8)}` },
        headers,
        ...(auth.cookie ? { cookie: auth.cookie } : {}),
      });
    const forged: Record<string, string>[] = [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of forged) {
      const refused = await change(headers);
      expect(refused.status, JSON.stringify(headers)).to.equal(403);
      expect(refused.body.code).to.equal('cross_site_request');
    }
    expect((await t.anon.get('/api/v1/users/me', { cookie, headers: { origin: 'https://evil.example' } })).status).to.equal(200);
    expect((await change({ origin: t.url, 'sec-fetch-site': 'same-origin' })).status).to.equal(201);
    expect((await change({})).status).to.equal(201); // not a browser: nothing to forge
    expect((await change({ origin: 'https://evil.example' }, { api: true })).status).to.equal(201);
    const owner = await createUser(t, 'owner');
    expect((await owner.client.put('/api/v1/settings/general', { allowed_origins: ['https://console.example'] })).status).to.equal(200);
    expect((await change({ origin: 'https://console.example' })).status).to.equal(201);
    expect((await owner.client.put('/api/v1/settings/general', { allowed_origins: [] })).status).to.equal(200);
    expect((await change({ origin: 'https://console.example' })).status).to.equal(403);
  });

  it('answers the same 401 for a malformed, an unknown and a revoked key', async () => {
    const revoked = await createUser(t, 'member');
    expect((await revoked.client.delete(`/api/v1/users/me/api-keys/${revoked.keyId}`)).status).to.equal(204);
    for (const api_key of ['not-a-key', `tg_usr_live_${'A'.repeat(43)}`, revoked.key]) {
      const res = await t.anon.post(SESSION, { api_key });
      expect(res.status, api_key).to.equal(401);
      expect(res.body.code).to.equal('invalid_api_key');
      expect(res.headers.getSetCookie().some((c) => c.startsWith('access_token='))).to.equal(false);
    }
  });

  it('answers 401 when the key belongs to a deactivated user', async () => {
    const gone = await createUser(t, 'member');
    expect((await t.owner.delete(`/api/v1/users/${gone.id}`)).status).to.equal(204);
    const res = await t.anon.post(SESSION, { api_key: gone.key });
    expect(res.status).to.equal(401);
  });

  it('answers 403 insufficient_scope for a key without api:read and api:write (a session is not narrowed by scopes)', async () => {
    const narrow = await createUser(t, 'admin', { scopes: ['mcp'] });
    const res = await t.anon.post(SESSION, { api_key: narrow.key });
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('insufficient_scope');
    const readOnly = await createUser(t, 'admin', { scopes: ['api:read'] });
    const res2 = await t.anon.post(SESSION, { api_key: readOnly.key });
    expect(res2.status).to.equal(403);
    expect(res2.body.detail).to.include('api:write');
  });

  it('never lets the session outlive the key: expires_at is cut to the key expiry', async () => {
    const expiresAt = new Date(clock.now().getTime() + 2 * 3600_000);
    const shortLived = await createUser(t, 'member', { expiresAt });
    const res = await t.anon.post(SESSION, { api_key: shortLived.key });
    expect(res.status).to.equal(200);
    expect(res.body.expires_at).to.equal(expiresAt.toISOString().replace(/\.\d{3}Z$/, '.000Z'));
    expect(sessionCookie(res.headers).setCookie).to.match(/Max-Age=7200/);
  });

  it('cuts the session to the end of a rotation grace period', async () => {
    const rotating = await createUser(t, 'member');
    const rot = await rotating.client.post(`/api/v1/users/me/api-keys/${rotating.keyId}/rotate`, { grace_period_seconds: 600 });
    expect(rot.status).to.equal(200);
    const res = await t.anon.post(SESSION, { api_key: rotating.key });
    expect(res.status).to.equal(200);
    expect(res.body.expires_at).to.equal(rot.body.grace_period_ends_at.replace(/\.\d{3}Z$/, '.000Z'));
  });

  it('answers 422 without echoing the key when the body is wrong', async () => {
    const long = `tg_usr_live_${'x'.repeat(600)}`;
    const res = await t.anon.post(SESSION, { api_key: long });
    expect(res.status).to.equal(422);
    expect(res.body.detail[0].loc).to.deep.equal(['body', 'api_key']);
    expect(res.text).to.not.include(long);
    const extra = await t.anon.post(SESSION, { api_key: admin.key, remember: true });
    expect(extra.status).to.equal(422);
    expect(extra.text).to.not.include(admin.key);
    const missing = await t.anon.post(SESSION, {});
    expect(missing.status).to.equal(422);
    expect(missing.body.detail[0].loc).to.deep.equal(['body', 'api_key']);
  });

  it('refuses a form post (415), so another site cannot sign a browser in', async () => {
    const res = await t.anon.request('POST', SESSION, {
      rawBody: `api_key=${encodeURIComponent(admin.key)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(415);
  });

  it('keeps the key out of every log line', () => {
    expect(capturedLogs.join('')).to.not.include(admin.key);
  });
});
