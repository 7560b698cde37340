import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ManualClock } from '../../../../src/lib/clock.js';
import { ApiClient } from '../../../helpers/api-client.js';
import { countQueries, createUser, type TestUser } from '../../../helpers/identity.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';

const KEYS = '/api/v1/users/me/api-keys';

describe('user API keys', function () {
  this.timeout(60000);
  let t: TestServer;
  let clock: ManualClock;
  let alice: TestUser;

  before(async () => {
    clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));
    // The periodic last-use flush must not run between the uses and the counted flush of a test.
    t = await startTestServer({ clock, start: { keyUsageFlushMs: 3_600_000 } });
    alice = await createUser(t, 'member');
  });
  after(async () => {
    await t?.stop();
  });

  describe('POST /api/v1/users/me/api-keys', () => {
    it('answers 201 with the full key once; the key works and is stored only as a hash', async () => {
      const res = await alice.client.post(KEYS, { name: 'ci', description: 'for CI' });
      expect(res.status).to.equal(201);
      expect(res.body.key).to.match(/^tg_usr_live_[A-Za-z0-9_-]{43}$/);
      expect(res.body.key.startsWith(res.body.key_prefix)).to.equal(true);
      expect(res.body).to.include({ name: 'ci', description: 'for CI', environment: 'live', is_active: true, rate_limit_rpm: null });
      expect(res.body.scopes).to.have.members(['api:read', 'api:write', 'mcp']);
      const me = await alice.client.as(res.body.key).get('/api/v1/users/me');
      expect(me.status).to.equal(200);
      expect(me.body.id).to.equal(alice.id);
      const row = await t.server.services.db.knex('api_keys').where({ id: res.body.id }).first();
      expect(JSON.stringify(row)).to.not.include(res.body.key);
      const got = await alice.client.get(`${KEYS}/${res.body.id}`);
      expect(got.status).to.equal(200);
      expect(got.body).to.not.have.property('key');
    });

    it('makes test-environment keys with the tg_usr_test_ prefix', async () => {
      const res = await alice.client.post(KEYS, { name: 'sandbox', environment: 'test' });
      expect(res.status).to.equal(201);
      expect(res.body.key).to.match(/^tg_usr_test_/);
    });

    it('answers 422 for an expires_at in the past', async () => {
      const res = await alice.client.post(KEYS, { name: 'old', expires_at: '2020-01-01T00:00:00Z' });
      expect(res.status).to.equal(422);
      expect(res.body.detail[0].loc).to.deep.equal(['body', 'expires_at']);
    });

    it('caps expires_at at api_key_max_lifetime_days (422 beyond it, the cap by default)', async () => {
      const patch = await t.owner.patch('/api/v1/settings/auth', { api_key_max_lifetime_days: 30 });
      expect(patch.status).to.equal(200);
      try {
        const far = await alice.client.post(KEYS, { name: 'far', expires_at: '2027-06-01T00:00:00Z' });
        expect(far.status).to.equal(422);
        const dflt = await alice.client.post(KEYS, { name: 'default expiry' });
        expect(dflt.status).to.equal(201);
        expect(new Date(dflt.body.expires_at).getTime()).to.equal(clock.now().getTime() + 30 * 86_400_000);
      } finally {
        await t.owner.patch('/api/v1/settings/auth', { api_key_max_lifetime_days: null });
      }
    });

    it('answers 413 for an oversized body and writes nothing', async () => {
      const before = await alice.client.get(`${KEYS}?page_size=100`);
      const res = await alice.client.post(KEYS, { name: 'big', description: 'd'.repeat(2 * 1024 * 1024) });
      expect(res.status).to.equal(413);
      expect(res.body.code).to.equal('payload_too_large');
      expect((await alice.client.get(`${KEYS}?page_size=100`)).body.total).to.equal(before.body.total);
    });

    it('answers 422 for unknown fields and bad scopes, and writes nothing', async () => {
      const before = await alice.client.get(`${KEYS}?page_size=100`);
      const res = await alice.client.post(KEYS, { name: 'x', scopes: ['root'], extra: 1 });
      expect(res.status).to.equal(422);
      const after = await alice.client.get(`${KEYS}?page_size=100`);
      expect(after.body.total).to.equal(before.body.total);
    });
  });

  describe('GET, PATCH /api/v1/users/me/api-keys', () => {
    it('lists only the caller’s keys, newest first, without secrets', async () => {
      const bob = await createUser(t, 'member');
      const res = await alice.client.get(KEYS);
      expect(res.status).to.equal(200);
      expect(res.body.items.length).to.be.greaterThan(0);
      expect(res.text).to.not.include(alice.key);
      expect(res.body.items.map((k: { id: string }) => k.id)).to.not.include(bob.keyId);
      const other = await alice.client.get(`${KEYS}/${bob.keyId}`);
      expect(other.status).to.equal(404);
    });

    it('updates name, scopes and rate limit; a read-only key then gets 403 on writes', async () => {
      const created = await alice.client.post(KEYS, { name: 'narrow' });
      const res = await alice.client.patch(`${KEYS}/${created.body.id}`, { name: 'read only', scopes: ['api:read'], rate_limit_rpm: 50 });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ name: 'read only', rate_limit_rpm: 50 });
      const narrow = alice.client.as(created.body.key);
      expect((await narrow.get('/api/v1/users/me')).status).to.equal(200);
      const write = await narrow.post(KEYS, { name: 'nope' });
      expect(write.status).to.equal(403);
      expect(write.body.code).to.equal('insufficient_scope');
    });

    it('answers 404 for an unknown key id', async () => {
      expect((await alice.client.patch(`${KEYS}/${randomUUID()}`, { name: 'x' })).status).to.equal(404);
    });
  });

  describe('DELETE /api/v1/users/me/api-keys/{key_id}', () => {
    it('revokes at once: the warm key answers 401 on the next request; idempotent; still listed inactive', async () => {
      const created = await alice.client.post(KEYS, { name: 'to revoke' });
      const victim = alice.client.as(created.body.key);
      expect((await victim.get('/api/v1/users/me')).status).to.equal(200);
      expect((await alice.client.delete(`${KEYS}/${created.body.id}`)).status).to.equal(204);
      const after = await victim.get('/api/v1/users/me');
      expect(after.status).to.equal(401);
      expect(after.body.code).to.equal('invalid_api_key');
      expect((await alice.client.delete(`${KEYS}/${created.body.id}`)).status).to.equal(204);
      const got = await alice.client.get(`${KEYS}/${created.body.id}`);
      expect(got.body).to.include({ is_active: false, state: 'revoked' });
    });

    it('lets a key revoke itself', async () => {
      const created = await alice.client.post(KEYS, { name: 'self' });
      const self = alice.client.as(created.body.key);
      expect((await self.delete(`${KEYS}/${created.body.id}`)).status).to.equal(204);
      expect((await self.get('/api/v1/users/me')).status).to.equal(401);
    });
  });

  describe('POST /api/v1/users/me/api-keys/{key_id}/rotate', () => {
    it('without a grace period: returns the new key once and the old key stops at once', async () => {
      const created = await alice.client.post(KEYS, { name: 'rotating', scopes: ['api:read', 'api:write'], rate_limit_rpm: 77 });
      const old = alice.client.as(created.body.key);
      expect((await old.get('/api/v1/users/me')).status).to.equal(200);
      const res = await alice.client.post(`${KEYS}/${created.body.id}/rotate`, {});
      expect(res.status).to.equal(200);
      expect(res.body.old_key_revoked).to.equal(true);
      expect(res.body.grace_period_ends_at).to.equal(null);
      expect(res.body.new_key.key).to.match(/^tg_usr_live_/);
      expect(res.body.new_key).to.include({ name: 'rotating', rate_limit_rpm: 77 });
      expect(res.body.new_key.scopes).to.have.members(['api:read', 'api:write']);
      expect((await old.get('/api/v1/users/me')).status).to.equal(401);
      expect((await alice.client.as(res.body.new_key.key).get('/api/v1/users/me')).status).to.equal(200);
      // The old key says what became of it: rotated, not revoked or expired; the new one is active.
      expect(res.body.new_key.state).to.equal('active');
      const oldView = await alice.client.get(`${KEYS}/${created.body.id}`);
      expect(oldView.body).to.include({ is_active: false, state: 'rotated' });
      const listed = await alice.client.get(`${KEYS}?page_size=100`);
      expect(listed.body.items.find((k: any) => k.id === created.body.id).state).to.equal('rotated');
      // A revoked key cannot be rotated again.
      expect((await alice.client.post(`${KEYS}/${created.body.id}/rotate`, {})).status).to.equal(409);
    });

    it('with grace_period_seconds: the old key works until grace_period_ends_at, then answers 401', async () => {
      const created = await alice.client.post(KEYS, { name: 'graceful' });
      const old = alice.client.as(created.body.key);
      const res = await alice.client.post(`${KEYS}/${created.body.id}/rotate`, { grace_period_seconds: 3600, name: 'graceful v2' });
      expect(res.status).to.equal(200);
      expect(res.body.old_key_revoked).to.equal(false);
      expect(res.body.new_key.name).to.equal('graceful v2');
      expect(new Date(res.body.grace_period_ends_at).getTime()).to.equal(clock.now().getTime() + 3600_000);
      const fresh = alice.client.as(res.body.new_key.key);
      expect((await old.get('/api/v1/users/me')).status).to.equal(200);
      expect((await alice.client.get(`${KEYS}/${created.body.id}`)).body).to.include({ is_active: true, state: 'rotated' });
      // Rotating a key already in its grace period is refused.
      expect((await alice.client.post(`${KEYS}/${created.body.id}/rotate`, {})).status).to.equal(409);
      clock.advance(3599_000);
      expect((await old.get('/api/v1/users/me')).status).to.equal(200);
      clock.advance(1_000);
      expect((await old.get('/api/v1/users/me')).status).to.equal(401);
      expect((await fresh.get('/api/v1/users/me')).status).to.equal(200);
      expect((await alice.client.get(`${KEYS}/${created.body.id}`)).body).to.include({ is_active: false, state: 'rotated' });
    });

    it('answers 404 for another user’s key and 422 for a grace period over 30 days', async () => {
      const bob = await createUser(t, 'member');
      expect((await alice.client.post(`${KEYS}/${bob.keyId}/rotate`, {})).status).to.equal(404);
      expect((await alice.client.post(`${KEYS}/${alice.keyId}/rotate`, { grace_period_seconds: 2592001 })).status).to.equal(422);
    });
  });

  describe('authentication with keys', () => {
    it('answers 401 for an expired key once the clock passes expires_at', async () => {
      const created = await alice.client.post(KEYS, { name: 'short', expires_at: new Date(clock.now().getTime() + 60_000).toISOString() });
      const short = alice.client.as(created.body.key);
      expect((await short.get('/api/v1/users/me')).status).to.equal(200);
      clock.advance(60_000);
      expect((await short.get('/api/v1/users/me')).status).to.equal(401);
      const got = await alice.client.get(`${KEYS}/${created.body.id}`);
      expect(got.body).to.include({ is_active: false, state: 'expired' });
    });

    it('serves a warm key from memory: no api_keys query per request', async () => {
      const carol = await createUser(t, 'member');
      await carol.client.get('/api/v1/users/me');
      const queries = await countQueries(t, 'api_keys', async () => {
        for (let i = 0; i < 10; i++) expect((await carol.client.get('/api/v1/users/me')).status).to.equal(200);
      });
      expect(queries).to.equal(0);
    });

    it('records last_used_at and last_used_ip in memory and writes them in one batch', async () => {
      const dave = await createUser(t, 'member');
      const erin = await createUser(t, 'member');
      const knex = t.server.services.db.knex;
      await dave.client.get('/api/v1/users/me');
      await erin.client.get('/api/v1/users/me');
      const before = await knex('api_keys').whereIn('id', [dave.keyId, erin.keyId]).select('last_used_at');
      expect(before.every((r: { last_used_at: Date | null }) => r.last_used_at === null)).to.equal(true);
      // The API already shows the buffered use.
      const shown = await dave.client.get(`${KEYS}/${dave.keyId}`);
      expect(shown.body.last_used_at).to.be.a('string');
      expect(shown.body.last_used_ip).to.match(/127\.0\.0\.1/);
      const writes = await countQueries(t, 'update api_keys', () => t.server.services.apiKeyAuth.flushUsage());
      expect(writes).to.equal(1);
      const after = await knex('api_keys').whereIn('id', [dave.keyId, erin.keyId]).select('last_used_at', 'last_used_ip');
      for (const r of after) {
        expect(r.last_used_at).to.be.instanceOf(Date);
        expect(r.last_used_ip).to.match(/127\.0\.0\.1/);
      }
    });

    it('answers 401 to malformed, unknown and wrong-prefix keys alike', async () => {
      for (const token of ['garbage', `tg_usr_live_${'x'.repeat(43)}`, `xx_usr_live_${'x'.repeat(43)}`]) {
        const res = await new ApiClient(t.url, token).get('/api/v1/users/me');
        expect(res.status).to.equal(401);
        expect(res.body.code).to.equal('invalid_api_key');
      }
    });
  });
});
