import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { sharedServer, type TestServer } from '../../../helpers/test-server.js';

describe('users and roles', function () {
  this.timeout(60000);
  let t: TestServer;
  let admin: TestUser;
  let member: TestUser;

  before(async () => {
    t = await sharedServer();
    admin = await createUser(t, 'admin');
    member = await createUser(t, 'member');
  });

  describe('GET /api/v1/users/me', () => {
    it('answers the caller', async () => {
      const res = await member.client.get('/api/v1/users/me');
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ id: member.id, email: member.email, role: 'member', is_active: true, auth_provider: null });
    });
  });

  describe('POST /api/v1/users: a user who signs in with an API key (no OAuth provider needed)', () => {
    it('adds the user with a first key shown once: the key works on the API, the console and the MCP endpoints', async () => {
      const email = `keyed-${randomUUID().slice(0, 8)}@example.com`;
      const res = await admin.client.post('/api/v1/users', { email, name: 'Keyed Person' });
      expect(res.status).to.equal(201);
      expect(res.body.user).to.include({ email, name: 'Keyed Person', role: 'member', is_active: true, auth_provider: null });
      expect(res.body.api_key.key).to.match(/^tg_usr_live_/);
      expect(res.body.api_key.name).to.equal('Initial key');
      const me = await t.anon.get('/api/v1/users/me', { token: res.body.api_key.key });
      expect(me.status).to.equal(200);
      expect(me.body.id).to.equal(res.body.user.id);
      const session = await t.anon.post('/api/v1/auth/session', { api_key: res.body.api_key.key }, { unchecked: true });
      expect(session.status, session.text).to.be.oneOf([200, 201]);
      // The key is never shown again and never recorded.
      const listed = await t.anon.get('/api/v1/users/me/api-keys', { token: res.body.api_key.key });
      expect(JSON.stringify(listed.body)).to.not.include(res.body.api_key.key);
      const activity = await t.server.services.db.knex('activity_log').where({ target_id: res.body.user.id });
      expect(activity.map((a) => a.action)).to.include('user.create');
      expect(JSON.stringify(await t.server.services.db.knex('activity_log').select('*'))).to.not.include(res.body.api_key.key);
    });

    it('answers 409 email_taken for an existing email, 403 when an admin asks for an owner, 403 to a member; adds nothing', async () => {
      const before = (await admin.client.get('/api/v1/users?page_size=100')).body.total;
      const taken = await admin.client.post('/api/v1/users', { email: member.email });
      expect(taken.status).to.equal(409);
      expect(taken.body.code).to.equal('email_taken');
      expect(
        (await admin.client.post('/api/v1/users', { email: `o-${randomUUID().slice(0, 8)}@example.com`, role: 'owner' })).status,
      ).to.equal(403);
      expect((await member.client.post('/api/v1/users', { email: `m-${randomUUID().slice(0, 8)}@example.com` })).status).to.equal(403);
      expect((await admin.client.get('/api/v1/users?page_size=100')).body.total).to.equal(before);
      const owner = await t.owner.post('/api/v1/users', { email: `o2-${randomUUID().slice(0, 8)}@example.com`, role: 'owner' });
      expect(owner.status).to.equal(201);
      expect(owner.body.user.role).to.equal('owner');
      // Later tests count the active owners of this shared server.
      expect((await t.owner.delete(`/api/v1/users/${owner.body.user.id}`)).status).to.equal(204);
    });

    it('warns on an invitation that nobody can accept (no sign-in provider is enabled)', async () => {
      const res = await admin.client.post('/api/v1/invitations', { email: `inv-${randomUUID().slice(0, 8)}@example.com` });
      expect(res.status).to.equal(201);
      expect(res.body.warning).to.be.a('string').and.include('POST /api/v1/users');
    });
  });

  describe('GET /api/v1/users', () => {
    it('lists users by email for admins, with search', async () => {
      const res = await admin.client.get('/api/v1/users?page_size=100');
      expect(res.status).to.equal(200);
      const emails = res.body.items.map((u: { email: string }) => u.email);
      expect(emails).to.include.members(['owner@example.com', admin.email, member.email]);
      expect([...emails].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase()))).to.deep.equal(emails);
      const found = await admin.client.get(`/api/v1/users?search=${encodeURIComponent(member.email.slice(0, 12))}`);
      expect(found.body.items.map((u: { id: string }) => u.id)).to.deep.equal([member.id]);
    });

    it('answers 403 to a member', async () => {
      const res = await member.client.get('/api/v1/users');
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('forbidden');
    });
  });

  describe('PATCH /api/v1/users/{user_id}', () => {
    it('lets an admin promote a member to admin; the new role applies to the warm key at once', async () => {
      const m = await createUser(t, 'member');
      expect((await m.client.get('/api/v1/users')).status).to.equal(403);
      const res = await admin.client.patch(`/api/v1/users/${m.id}`, { role: 'admin', name: 'Promoted' });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ role: 'admin', name: 'Promoted' });
      expect((await m.client.get('/api/v1/users')).status).to.equal(200);
    });

    it('answers 403 when an admin grants the owner role or changes an owner', async () => {
      const m = await createUser(t, 'member');
      expect((await admin.client.patch(`/api/v1/users/${m.id}`, { role: 'owner' })).status).to.equal(403);
      const owner = await t.owner.get('/api/v1/users/me');
      expect((await admin.client.patch(`/api/v1/users/${owner.body.id}`, { name: 'x' })).status).to.equal(403);
      expect((await admin.client.delete(`/api/v1/users/${owner.body.id}`)).status).to.equal(403);
    });

    it('answers 403 to a change of one’s own role', async () => {
      expect((await admin.client.patch(`/api/v1/users/${admin.id}`, { role: 'member' })).status).to.equal(403);
    });

    it('lets an owner grant and revoke owner; the last active owner is protected with 409', async () => {
      const me = (await t.owner.get('/api/v1/users/me')).body;
      const res = await t.owner.patch(`/api/v1/users/${me.id}`, { role: 'admin' });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('last_owner');
      expect((await t.owner.delete(`/api/v1/users/${me.id}`)).status).to.equal(409);
      const second = await createUser(t, 'admin');
      expect((await t.owner.patch(`/api/v1/users/${second.id}`, { role: 'owner' })).status).to.equal(200);
      // With two owners, one owner may demote the other, but still not themselves.
      expect((await t.owner.patch(`/api/v1/users/${me.id}`, { role: 'admin' })).status).to.equal(403);
      expect((await t.owner.patch(`/api/v1/users/${second.id}`, { role: 'admin' })).status).to.equal(200);
      expect((await second.client.get('/api/v1/settings/auth')).status).to.equal(200);
      expect((await second.client.patch(`/api/v1/users/${me.id}`, { name: 'x' })).status).to.equal(403);
    });

    it('answers 404 for an unknown user and 422 for an unknown role', async () => {
      expect((await admin.client.patch(`/api/v1/users/${randomUUID()}`, { name: 'x' })).status).to.equal(404);
      expect((await admin.client.patch(`/api/v1/users/${member.id}`, { role: 'root' })).status).to.equal(422);
    });
  });

  describe('DELETE /api/v1/users/{user_id}', () => {
    it('deactivates: the user’s warm key answers 401 at once; idempotent; reactivation restores the key', async () => {
      const m = await createUser(t, 'member');
      expect((await m.client.get('/api/v1/users/me')).status).to.equal(200);
      expect((await admin.client.delete(`/api/v1/users/${m.id}`)).status).to.equal(204);
      expect((await m.client.get('/api/v1/users/me')).status).to.equal(401);
      expect((await admin.client.delete(`/api/v1/users/${m.id}`)).status).to.equal(204);
      const listed = await admin.client.get(`/api/v1/users?search=${encodeURIComponent(m.email)}`);
      expect(listed.body.items[0].is_active).to.equal(false);
      expect((await admin.client.patch(`/api/v1/users/${m.id}`, { is_active: true })).status).to.equal(200);
      expect((await m.client.get('/api/v1/users/me')).status).to.equal(200);
    });

    it('answers 403 to deactivating oneself and 404 for an unknown user', async () => {
      expect((await admin.client.delete(`/api/v1/users/${admin.id}`)).status).to.equal(403);
      expect((await admin.client.delete(`/api/v1/users/${randomUUID()}`)).status).to.equal(404);
    });
  });

  describe('GET and PUT /api/v1/users/me/gateway-settings', () => {
    it('answers the defaults, then changes only the supplied fields', async () => {
      const m = await createUser(t, 'member');
      const dflt = await m.client.get('/api/v1/users/me/gateway-settings');
      expect(dflt.status).to.equal(200);
      expect(dflt.body).to.deep.equal({ mode: 'direct', bundle_ids: [], search_result_limit: 10, updated_at: null });
      const put = await m.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute' });
      expect(put.status).to.equal(200);
      expect(put.body).to.include({ mode: 'search_execute', search_result_limit: 10 });
      const put2 = await m.client.put('/api/v1/users/me/gateway-settings', { search_result_limit: 5 });
      expect(put2.body).to.include({ mode: 'search_execute', search_result_limit: 5 });
      expect((await m.client.put('/api/v1/users/me/gateway-settings', {})).status).to.equal(422);
    });
  });
});
