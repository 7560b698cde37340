import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../../../src/lib/clock.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { TestOidcProvider, type OidcUser } from '../../../helpers/oidc-provider.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';

const INV = '/api/v1/invitations';

describe('invitations', function () {
  this.timeout(60000);
  let t: TestServer;
  let idp: TestOidcProvider;
  let clock: ManualClock;
  let admin: TestUser;
  let member: TestUser;

  async function login(user: OidcUser, invitation?: string): Promise<{ status: number; cookie?: string; body: any }> {
    idp.nextUser = user;
    const start = await t.anon.get(`/api/v1/auth/login/oidc${invitation ? `?invitation=${encodeURIComponent(invitation)}` : ''}`);
    if (start.status !== 302) return { status: start.status, body: start.body };
    const state = start.headers
      .getSetCookie()
      .find((c) => c.startsWith('tg_oauth_state='))!
      .split(';')[0]!;
    const atIdp = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const cb = new URL(atIdp.headers.get('location')!);
    const res = await t.anon.get(`${cb.pathname}${cb.search}`, { cookie: state });
    const session = res.headers
      .getSetCookie()
      .find((c) => c.startsWith('access_token='))
      ?.split(';')[0];
    return { status: res.status, body: res.body, ...(session ? { cookie: session } : {}) };
  }

  before(async () => {
    clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
    idp = await new TestOidcProvider().start();
    t = await startTestServer({ clock, env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*', TOOLGATE_PUBLIC_URL: 'http://toolgate.test' } });
    admin = await createUser(t, 'admin');
    member = await createUser(t, 'member');
    // Public URL differs from the listening address: register the address the provider redirects to.
    idp.clients.set('inv-client', { secret: 'inv-secret', redirectUris: ['http://toolgate.test/api/v1/auth/callback/oidc'] });
    await admin.client.post('/api/v1/settings/auth/providers', {
      provider_type: 'oidc',
      display_name: 'SSO',
      client_id: 'inv-client',
      client_secret: 'inv-secret',
      config: { discovery_url: idp.discoveryUrl },
    });
    await admin.client.post('/api/v1/settings/auth/providers', {
      provider_type: 'github',
      display_name: 'GitHub',
      client_id: 'gh',
      client_secret: 'gh-secret',
      is_enabled: false,
    });
  });
  after(async () => {
    await t?.stop();
    await idp?.stop();
  });

  describe('POST /api/v1/invitations', () => {
    it('answers 201 with the token and accept_url once; only a hash is stored', async () => {
      const res = await admin.client.post(INV, { email: 'new.person@partner.example', role: 'admin', expires_in_hours: 48 });
      expect(res.status).to.equal(201);
      // A sign-in provider is enabled here: the invitation can be accepted, nothing to warn about.
      expect(res.body.warning).to.equal(null);
      expect(res.body).to.include({
        email: 'new.person@partner.example',
        role: 'admin',
        status: 'pending',
        invited_by: admin.id,
        accepted_at: null,
      });
      expect(res.body.token).to.match(/^tginv_[A-Za-z0-9_-]{43}$/);
      expect(res.body.accept_url).to.equal(`http://toolgate.test/invitations/accept?token=${res.body.token}`);
      expect(new Date(res.body.expires_at).getTime()).to.equal(clock.now().getTime() + 48 * 3_600_000);
      const row = await t.server.services.db.knex('invitations').where({ id: res.body.id }).first();
      expect(JSON.stringify(row)).to.not.include(res.body.token);
      const list = await admin.client.get(INV);
      expect(list.text).to.not.include(res.body.token);
    });

    it('answers 409 for an existing user’s email or a second pending invitation, 403 when an admin invites an owner', async () => {
      expect((await admin.client.post(INV, { email: member.email })).status).to.equal(409);
      expect((await admin.client.post(INV, { email: 'NEW.person@partner.example' })).status).to.equal(409);
      const owner = await admin.client.post(INV, { email: 'boss@partner.example', role: 'owner' });
      expect(owner.status).to.equal(403);
      expect((await t.owner.post(INV, { email: 'boss@partner.example', role: 'owner' })).status).to.equal(201);
    });

    it('answers 403 to a member and 422 to a bad email', async () => {
      expect((await member.client.post(INV, { email: 'x@partner.example' })).status).to.equal(403);
      expect((await admin.client.post(INV, { email: 'not an email' })).status).to.equal(422);
    });
  });

  describe('GET /api/v1/invitations/accept/{token}', () => {
    it('answers the accept page details without a credential, with the enabled providers', async () => {
      const created = await admin.client.post(INV, { email: 'pat@partner.example' });
      const res = await t.anon.get(`${INV}/accept/${created.body.token}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        email: 'pat@partner.example',
        role: 'member',
        invited_by_name: 'admin user',
        expires_at: created.body.expires_at,
        available_providers: ['oidc'],
      });
    });

    it('answers 404 for an unknown or revoked token and 410 for an expired one', async () => {
      expect((await t.anon.get(`${INV}/accept/tginv_unknown`)).status).to.equal(404);
      const revoked = await admin.client.post(INV, { email: 'rev@partner.example' });
      expect((await admin.client.delete(`${INV}/${revoked.body.id}`)).status).to.equal(204);
      const gone = await t.anon.get(`${INV}/accept/${revoked.body.token}`);
      expect(gone.status).to.equal(404);
      expect(gone.body.code).to.equal('invitation_not_found');
      const expiring = await admin.client.post(INV, { email: 'late@partner.example', expires_in_hours: 1 });
      clock.advance(3_600_000);
      const expired = await t.anon.get(`${INV}/accept/${expiring.body.token}`);
      expect(expired.status).to.equal(410);
      expect(expired.body.code).to.equal('gone');
      // Revoking a non-pending invitation is a conflict.
      expect((await admin.client.delete(`${INV}/${expiring.body.id}`)).status).to.equal(409);
      expect((await admin.client.delete(`${INV}/${randomUUID()}`)).status).to.equal(404);
    });

    it('revokes once when two revokes race: one 204, one 409, one activity entry', async () => {
      const created = await admin.client.post(INV, { email: 'race@partner.example' });
      const statuses = (await Promise.all([1, 2, 3].map(() => admin.client.delete(`${INV}/${created.body.id}`)))).map((r) => r.status);
      expect(statuses.sort()).to.deep.equal([204, 409, 409]);
      const entries = await t.server.services.db.knex('activity_log').where({ action: 'invitation.revoke', target_id: created.body.id });
      expect(entries).to.have.length(1);
    });
  });

  describe('acceptance through OAuth login', () => {
    it('creates the user with the invited role, marks the invitation accepted and retires the token', async () => {
      const created = await admin.client.post(INV, { email: 'joiner@partner.example', role: 'admin' });
      const result = await login(
        { sub: 'sub-joiner', email: 'Joiner@partner.example', email_verified: true, name: 'Jo' },
        created.body.token,
      );
      expect(result.status, JSON.stringify(result.body)).to.equal(302);
      const me = await t.anon.get('/api/v1/users/me', { cookie: result.cookie! });
      expect(me.body).to.include({ email: 'Joiner@partner.example', role: 'admin', name: 'Jo' });
      const list = await admin.client.get(`${INV}?status=accepted`);
      const accepted = list.body.items.find((i: { id: string }) => i.id === created.body.id);
      expect(accepted.status).to.equal('accepted');
      expect(accepted.accepted_at).to.be.a('string');
      expect((await t.anon.get(`${INV}/accept/${created.body.token}`)).status).to.equal(404);
      expect((await t.anon.get(`/api/v1/auth/login/oidc?invitation=${created.body.token}`)).status).to.equal(404);
    });

    it('refuses (403) a sign-in with another email than the invited one, and leaves the invitation pending', async () => {
      const created = await admin.client.post(INV, { email: 'right@partner.example' });
      const result = await login({ sub: 'sub-wrong', email: 'wrong@partner.example', email_verified: true }, created.body.token);
      expect(result.status).to.equal(403);
      expect(result.body.code).to.equal('invitation_email_mismatch');
      expect((await t.anon.get(`${INV}/accept/${created.body.token}`)).status).to.equal(200);
      expect((await admin.client.get('/api/v1/users?search=wrong@partner.example')).body.total).to.equal(0);
    });

    it('accepts a pending invitation for the email even when the login carries no token', async () => {
      const created = await admin.client.post(INV, { email: 'notoken@partner.example' });
      const result = await login({ sub: 'sub-nt', email: 'notoken@partner.example', email_verified: true });
      expect(result.status).to.equal(302);
      const got = await admin.client.get(`${INV}?status=accepted&page_size=100`);
      expect(got.body.items.map((i: { id: string }) => i.id)).to.include(created.body.id);
    });
  });

  describe('GET /api/v1/invitations', () => {
    it('lists newest first and filters by status', async () => {
      const all = await admin.client.get(`${INV}?page_size=100`);
      expect(all.status).to.equal(200);
      const created = all.body.items.map((i: { created_at: string }) => i.created_at);
      expect([...created].sort().reverse()).to.deep.equal(created);
      for (const status of ['pending', 'accepted', 'revoked', 'expired']) {
        const res = await admin.client.get(`${INV}?status=${status}&page_size=100`);
        expect(
          res.body.items.every((i: { status: string }) => i.status === status),
          status,
        ).to.equal(true);
        expect(res.body.items.length, status).to.be.greaterThan(0);
      }
      expect((await admin.client.get(`${INV}?status=bogus`)).status).to.equal(422);
    });
  });
});
