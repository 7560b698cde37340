import { expect } from 'chai';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { seedSecret } from '../../../helpers/secrets.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';

const PROVIDERS = '/api/v1/settings/auth/providers';

describe('auth settings and OAuth providers', function () {
  this.timeout(60000);
  let t: TestServer;
  let admin: TestUser;
  let member: TestUser;

  before(async () => {
    for (const s of ['gh-secret-value-123', 'google-secret', 'google-secret-2']) seedSecret(s);
    t = await startTestServer();
    admin = await createUser(t, 'admin');
    member = await createUser(t, 'member');
  });
  after(async () => {
    await t?.stop();
  });

  describe('GET /api/v1/settings/auth', () => {
    it('answers the defaults before any change', async () => {
      const res = await admin.client.get('/api/v1/settings/auth');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        allowed_domains: [],
        admin_emails: [],
        access_token_expire_minutes: 1440,
        api_key_max_lifetime_days: null,
        updated_at: null,
      });
    });

    it('answers 403 to a member and 401 without a credential', async () => {
      expect((await member.client.get('/api/v1/settings/auth')).status).to.equal(403);
      expect((await t.anon.get('/api/v1/settings/auth')).status).to.equal(401);
    });
  });

  describe('PATCH /api/v1/settings/auth', () => {
    it('changes only the supplied fields; domains are stored lowercase', async () => {
      const first = await admin.client.patch('/api/v1/settings/auth', {
        allowed_domains: ['Example.COM'],
        access_token_expire_minutes: 60,
      });
      expect(first.status).to.equal(200);
      expect(first.body).to.include({ access_token_expire_minutes: 60, api_key_max_lifetime_days: null });
      expect(first.body.allowed_domains).to.deep.equal(['example.com']);
      expect(first.body.updated_at).to.be.a('string');
      const second = await admin.client.patch('/api/v1/settings/auth', {
        admin_emails: ['Boss@Example.com'],
        api_key_max_lifetime_days: 90,
      });
      expect(second.body).to.deep.include({
        allowed_domains: ['example.com'],
        admin_emails: ['Boss@Example.com'],
        access_token_expire_minutes: 60,
      });
      const cleared = await admin.client.patch('/api/v1/settings/auth', { api_key_max_lifetime_days: null });
      expect(cleared.body.api_key_max_lifetime_days).to.equal(null);
      expect((await admin.client.get('/api/v1/settings/auth')).body).to.deep.equal(cleared.body);
    });

    it('answers 422 for a bad domain, a lifetime below 5 minutes, an empty body or unknown fields, and changes nothing', async () => {
      const before = (await admin.client.get('/api/v1/settings/auth')).body;
      for (const body of [
        { allowed_domains: ['not a domain'] },
        { access_token_expire_minutes: 1 },
        {},
        { allowed_domains: [], nope: 1 },
      ]) {
        const res = await admin.client.patch('/api/v1/settings/auth', body);
        expect(res.status, JSON.stringify(body)).to.equal(422);
      }
      expect((await admin.client.get('/api/v1/settings/auth')).body).to.deep.equal(before);
    });
  });

  describe('OAuth providers', () => {
    it('POST creates a provider (201) with has_client_secret and never the secret; the secret is sealed at rest', async () => {
      const res = await admin.client.post(PROVIDERS, {
        provider_type: 'github',
        display_name: 'GitHub',
        client_id: 'gh-client',
        client_secret: 'gh-secret-value-123',
        display_order: 2,
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({
        provider_type: 'github',
        display_name: 'GitHub',
        client_id: 'gh-client',
        has_client_secret: true,
        is_enabled: true,
      });
      expect(res.text).to.not.include('gh-secret-value-123');
      const row = await t.server.services.db.knex('oauth_providers').where({ provider_type: 'github' }).first();
      expect(row.client_secret_sealed).to.match(/^v1\./);
      expect(JSON.stringify(row)).to.not.include('gh-secret-value-123');
      expect(t.server.services.secrets.open(row.client_secret_sealed)).to.equal('gh-secret-value-123');
    });

    it('answers 409 for a duplicate provider_type and leaves the first untouched', async () => {
      const res = await admin.client.post(PROVIDERS, {
        provider_type: 'github',
        display_name: 'Other',
        client_id: 'x',
        client_secret: 'y',
      });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('conflict');
      const list = await admin.client.get(PROVIDERS);
      const gh = list.body.items.filter((p: { provider_type: string }) => p.provider_type === 'github');
      expect(gh).to.have.length(1);
      expect(gh[0].display_name).to.equal('GitHub');
    });

    it('answers 422 for an oidc provider without discovery or issuer, a bad provider_type, or a missing secret', async () => {
      const bad = [
        { provider_type: 'oidc', display_name: 'SSO', client_id: 'c', client_secret: 's' },
        { provider_type: 'Not Valid!', display_name: 'x', client_id: 'c', client_secret: 's' },
        { provider_type: 'okta', display_name: 'Okta', client_id: 'c' },
        {
          provider_type: 'custom',
          display_name: 'C',
          client_id: 'c',
          client_secret: 's',
          config: { authorization_url: 'https://a.example/auth' },
        },
      ];
      for (const body of bad) expect((await admin.client.post(PROVIDERS, body)).status, JSON.stringify(body)).to.equal(422);
      const types = (await admin.client.get(PROVIDERS)).body.items.map((p: { provider_type: string }) => p.provider_type);
      expect(types).to.not.include.members(['oidc', 'okta', 'custom']);
    });

    it('answers 422 for a discovery URL on a loopback or private address that is not allow-listed', async () => {
      for (const url of [
        'http://127.0.0.1:9/.well-known/openid-configuration',
        'http://localhost/x',
        'http://169.254.169.254/latest',
        'http://[::1]/x',
      ]) {
        const res = await admin.client.post(PROVIDERS, {
          provider_type: 'oidc',
          display_name: 'SSO',
          client_id: 'c',
          client_secret: 's',
          config: { discovery_url: url },
        });
        expect(res.status, url).to.equal(422);
        expect(res.body.detail[0].loc).to.deep.equal(['body', 'config', 'discovery_url']);
      }
    });

    it('lists disabled providers too, by display_order', async () => {
      const created = await admin.client.post(PROVIDERS, {
        provider_type: 'google',
        display_name: 'Google',
        client_id: 'g',
        client_secret: 'google-secret',
        is_enabled: false,
        display_order: 1,
      });
      expect(created.status).to.equal(201);
      const list = await admin.client.get(PROVIDERS);
      expect(list.status).to.equal(200);
      expect(list.body.items.map((p: { provider_type: string }) => p.provider_type)).to.deep.equal(['google', 'github']);
      expect(list.body.total).to.equal(2);
      const login = await t.anon.get('/api/v1/auth/providers');
      expect(login.body.items).to.deep.equal([{ provider_type: 'github', display_name: 'GitHub' }]);
    });

    it('PATCH changes only the supplied fields and re-encrypts a supplied client_secret', async () => {
      const knex = t.server.services.db.knex;
      const before = await knex('oauth_providers').where({ provider_type: 'google' }).first();
      const res = await admin.client.patch(`${PROVIDERS}/google`, { is_enabled: true });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ is_enabled: true, display_name: 'Google', client_id: 'g', has_client_secret: true });
      const same = await knex('oauth_providers').where({ provider_type: 'google' }).first();
      expect(same.client_secret_sealed).to.equal(before.client_secret_sealed);
      const rotated = await admin.client.patch(`${PROVIDERS}/google`, { client_secret: 'google-secret-2' });
      expect(rotated.status).to.equal(200);
      expect(rotated.text).to.not.include('google-secret-2');
      const after = await knex('oauth_providers').where({ provider_type: 'google' }).first();
      expect(after.client_secret_sealed).to.not.equal(before.client_secret_sealed);
      expect(t.server.services.secrets.open(after.client_secret_sealed)).to.equal('google-secret-2');
    });

    it('PATCH and DELETE answer 404 for an unknown provider_type', async () => {
      expect((await admin.client.patch(`${PROVIDERS}/nope`, { display_name: 'x' })).status).to.equal(404);
      expect((await admin.client.delete(`${PROVIDERS}/nope`)).status).to.equal(404);
    });

    it('DELETE removes the provider and its sealed secret for good (204)', async () => {
      expect((await admin.client.delete(`${PROVIDERS}/google`)).status).to.equal(204);
      const row = await t.server.services.db.knex('oauth_providers').where({ provider_type: 'google' }).first();
      expect(row).to.equal(undefined);
      expect((await admin.client.delete(`${PROVIDERS}/google`)).status).to.equal(404);
    });

    it('answers 403 to a member on every provider operation', async () => {
      expect((await member.client.get(PROVIDERS)).status).to.equal(403);
      expect((await member.client.post(PROVIDERS, {})).status).to.equal(403);
      expect((await member.client.patch(`${PROVIDERS}/github`, {})).status).to.equal(403);
      expect((await member.client.delete(`${PROVIDERS}/github`)).status).to.equal(403);
    });
  });
});
