import { expect } from 'chai';
import { ApiClient } from '../../../helpers/api-client.js';
import { capturedLogs, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { containsSecret, seedSecret } from '../../../helpers/secrets.js';
import { ACCEPT_BOTH, mcpFetch } from '../../../helpers/mcp-http.js';

const ENV = {
  TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '1234',
  TOOLGATE_ALLOWED_ORIGINS: 'https://console.example.com',
  TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1',
};

const DEFAULTS = {
  log_retention_days: 30,
  activity_log_retention_days: 365,
  default_rate_limit_rpm: 600,
  mcp_session_idle_timeout_minutes: 30,
  upstream_call_timeout_ms: 60000,
  health_check_interval_seconds: 60,
  allowed_origins: [],
  outbound_allowlist: [],
  registry_url: null,
  oauth_client_registration: 'open',
  has_registry_token: false,
  updated_at: null,
  set_by_environment: [],
};

describe('general settings: GET, PUT, POST reset', function () {
  this.timeout(60000);
  let t: TestServer;
  let admin: TestUser;
  let member: TestUser;
  const bodies: string[] = [];

  before(async () => {
    t = await startTestServer();
    admin = await createUser(t, 'admin');
    member = await createUser(t, 'member');
  });
  after(() => t.stop());

  const put = async (body: Record<string, unknown>) => {
    const res = await admin.client.put('/api/v1/settings/general', body);
    bodies.push(res.text);
    return res;
  };

  it('answers the built-in defaults to any signed-in user', async () => {
    const res = await member.client.get('/api/v1/settings/general');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(DEFAULTS);
  });

  it('changes only the supplied fields and keeps the others', async () => {
    const res = await put({ log_retention_days: 7, allowed_origins: ['https://Agents.Example.com:8443', 'http://b.example.com'] });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ log_retention_days: 7, activity_log_retention_days: 365, default_rate_limit_rpm: 600 });
    expect(res.body.allowed_origins).to.deep.equal(['https://agents.example.com:8443', 'http://b.example.com']);
    expect(res.body.outbound_allowlist).to.deep.equal([]);
    expect(Date.parse(res.body.updated_at)).to.be.closeTo(Date.now(), 60_000);
    const again = await put({ activity_log_retention_days: 90 });
    expect(again.body).to.include({ log_retention_days: 7, activity_log_retention_days: 90 });
    expect(again.body.allowed_origins).to.have.length(2);
    expect((await member.client.get('/api/v1/settings/general')).body).to.deep.equal(again.body);
  });

  it('refuses what it cannot apply with 422 naming the field, and changes nothing', async () => {
    const before = (await admin.client.get('/api/v1/settings/general')).body;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ outbound_allowlist: ['10.0.0.0/8', 'not a host!'] }, ['body', 'outbound_allowlist', 1]],
      [{ outbound_allowlist: ['10.0.0.0/33'] }, ['body', 'outbound_allowlist', 0]],
      [{ outbound_allowlist: ['127.0.0.1:65536'] }, ['body', 'outbound_allowlist', 0]],
      [{ log_retention_days: 0 }, ['body', 'log_retention_days']],
      [{ allowed_origins: ['https://a.example.com/path'] }, ['body', 'allowed_origins', 0]],
      [{ registry_url: 'http://10.1.2.3/registry' }, ['body', 'registry_url']],
      [{ unknown_field: 1 }, ['body', 'unknown_field']],
    ];
    for (const [body, loc] of cases) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).to.equal(422);
      expect(
        res.body.detail.map((d: { loc: unknown }) => JSON.stringify(d.loc)),
        JSON.stringify(body),
      ).to.include(JSON.stringify(loc));
    }
    expect((await put({})).status).to.equal(422);
    expect((await admin.client.get('/api/v1/settings/general')).body).to.deep.equal(before);
  });

  it('is changed by admins and owners only', async () => {
    expect((await member.client.put('/api/v1/settings/general', { log_retention_days: 3 })).status).to.equal(403);
    expect((await member.client.post('/api/v1/settings/general/reset')).status).to.equal(403);
    expect((await t.anon.get('/api/v1/settings/general')).status).to.equal(401);
  });

  it('seals the registry token, never returns or logs it, and clears it with null', async () => {
    const token = seedSecret(`regtok-${'x'.repeat(8)}-${Date.now()}-canary`);
    const res = await put({ registry_url: 'https://registry.example.com/v1', registry_token: token });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ registry_url: 'https://registry.example.com/v1', has_registry_token: true });
    const row = await t.server.services.db.knex('general_settings').first();
    expect(row.registry_token_sealed).to.be.a('string').and.not.include(token);
    expect(t.server.services.secrets.open(row.registry_token_sealed)).to.equal(token);
    expect(await t.server.services.generalSettings.registry()).to.deep.equal({ url: 'https://registry.example.com/v1', token });
    const activity = await t.server.services.db.knex('activity_log').select('*');
    for (const text of [...bodies, JSON.stringify(activity), capturedLogs.join('')]) expect(containsSecret(text, token)).to.equal(false);
    const cleared = await put({ registry_token: null });
    expect(cleared.body).to.include({ has_registry_token: false, registry_url: 'https://registry.example.com/v1' });
  });

  it('records every change in the activity log: who, what, which fields (never values)', async () => {
    const rows = await t.server.services.db.knex('activity_log').where({ action: 'settings.general.update' }).orderBy('occurred_at');
    expect(rows.length).to.be.at.least(4);
    expect(rows[0]).to.include({ actor_id: admin.id, actor_name: 'admin user', target_type: 'settings', outcome: 'success' });
    expect(rows.map((r) => r.details.fields)).to.deep.include(['registry_token', 'registry_url']);
  });

  describe('takes effect at run time, without a restart', () => {
    it('default rate limit: applies to the next request of a credential already cached', async () => {
      const user = await createUser(t, 'member');
      const first = await user.client.get('/api/v1/users/me');
      expect(first.headers.get('ratelimit-limit')).to.equal('600');
      await put({ default_rate_limit_rpm: 3 });
      const statuses: number[] = [];
      let limit = '';
      for (let i = 0; i < 4; i++) {
        const res = await user.client.get('/api/v1/users/me');
        statuses.push(res.status);
        limit ||= res.headers.get('ratelimit-limit') ?? '';
      }
      expect(limit).to.equal('3');
      expect(statuses.at(-1)).to.equal(429);
      // A key with its own limit keeps it.
      const own = await createUser(t, 'member', { rateLimitRpm: 50 });
      expect((await own.client.get('/api/v1/users/me')).headers.get('ratelimit-limit')).to.equal('50');
      await put({ default_rate_limit_rpm: 100000 });
    });

    it('outbound allow-list: a private registry address is accepted once its range is listed', async () => {
      const policy = t.server.services.outboundPolicy;
      expect(() => policy.checkStatic('http://10.1.2.3/')).to.throw();
      expect((await put({ registry_url: 'http://10.1.2.3/registry' })).status).to.equal(422);
      const res = await put({ outbound_allowlist: ['127.0.0.1:*', '10.0.0.0/8', 'MCP.Internal.Example.com:8443', '[::1]:9000'] });
      expect(res.body.outbound_allowlist).to.deep.equal(['127.0.0.1:*', '10.0.0.0/8', 'mcp.internal.example.com:8443', '[::1]:9000']);
      expect(() => policy.checkStatic('http://10.1.2.3/')).to.not.throw();
      expect((await put({ registry_url: 'http://10.1.2.3/registry' })).status).to.equal(200);
    });

    it('allowed origins: a browser origin is refused on the MCP endpoint until it is listed', async () => {
      const bundle = await admin.client.post('/api/v1/bundles', { name: `origins-${Date.now()}` });
      const url = `${t.url}/mcp/bundle/${bundle.body.bundle_key}`;
      const init = (origin: string) =>
        mcpFetch(url, {
          body: {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'o', version: '1' } },
          },
          headers: { origin, accept: ACCEPT_BOTH },
        });
      expect((await init('https://new.example.com')).status).to.equal(403);
      await put({ allowed_origins: ['https://new.example.com'] });
      expect((await init('https://new.example.com')).status).to.equal(200);
      await put({ allowed_origins: [] });
      expect((await init('https://new.example.com')).status).to.equal(403);
    });

    it('health-check interval and call timeout: servers without their own follow the setting, also after a change', async () => {
      const register = (name: string, extra: Record<string, unknown> = {}) =>
        admin.client.post('/api/v1/servers', {
          name: `${name}-${Date.now()}`,
          transport: 'streamable_http',
          url: 'http://127.0.0.1:9/mcp',
          ...extra,
        });
      const before = await register('before', { enabled: false });
      const live = await register('live');
      const own = await register('own', { enabled: false, health_check_interval_seconds: 30 });
      expect(before.body).to.include({ health_check_interval_seconds: 60, call_timeout_ms: 60000 });
      expect(before.body.inherited).to.have.members(['call_timeout_ms', 'health_check_interval_seconds']);
      expect(own.body.inherited).to.deep.equal(['call_timeout_ms']);
      await put({ health_check_interval_seconds: 120, upstream_call_timeout_ms: 5000 });
      // Registered before the change, and without values of their own: they follow it.
      expect((await admin.client.get(`/api/v1/servers/${before.body.id}`)).body).to.include({
        health_check_interval_seconds: 120,
        call_timeout_ms: 5000,
      });
      const ownNow = (await admin.client.get(`/api/v1/servers/${own.body.id}`)).body;
      expect(ownNow).to.include({ health_check_interval_seconds: 30, call_timeout_ms: 5000 });
      // The connection of a running server takes the new timeout for its next call.
      const pool = t.server.services.pool as unknown as { connections: Map<string, { spec: { callTimeoutMs: number } }> };
      let spec = pool.connections.get(live.body.id)?.spec;
      for (let i = 0; i < 50 && spec?.callTimeoutMs !== 5000; i++) {
        await new Promise((r) => setTimeout(r, 20));
        spec = pool.connections.get(live.body.id)?.spec;
      }
      expect(spec?.callTimeoutMs).to.equal(5000);
      // A value of its own, then null: it follows the setting again.
      const pinned = await admin.client.patch(`/api/v1/servers/${before.body.id}`, { call_timeout_ms: 7000 });
      expect(pinned.body).to.include({ call_timeout_ms: 7000 });
      expect(pinned.body.inherited).to.deep.equal(['health_check_interval_seconds']);
      const back = await admin.client.patch(`/api/v1/servers/${before.body.id}`, { call_timeout_ms: null });
      expect(back.body).to.include({ call_timeout_ms: 5000 });
      expect(back.body.inherited).to.have.members(['call_timeout_ms', 'health_check_interval_seconds']);
      await admin.client.delete(`/api/v1/servers/${live.body.id}`);
    });

    it('MCP session idle timeout: applies to open sessions', async () => {
      const bundle = await admin.client.post('/api/v1/bundles', { name: `idle-${Date.now()}` });
      const url = `${t.url}/mcp/bundle/${bundle.body.bundle_key}`;
      const open = async () => {
        const reply = await mcpFetch(url, {
          body: {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'o', version: '1' } },
          },
        });
        return reply.headers.get('mcp-session-id')!;
      };
      const ping = (session: string) =>
        mcpFetch(url, {
          body: { jsonrpc: '2.0', id: 2, method: 'ping' },
          headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        });
      const idleFor = (session: string, ms: number) => (t.server.mcp.core.sessions.get(session)!.lastSeen = Date.now() - ms);
      const a = await open();
      const b = await open();
      idleFor(a, 5 * 60_000);
      expect((await ping(a)).status).to.equal(200);
      await put({ mcp_session_idle_timeout_minutes: 2 });
      idleFor(a, 3 * 60_000);
      idleFor(b, 60_000);
      expect((await ping(a)).status).to.equal(404);
      expect((await ping(b)).status).to.equal(200);
      await put({ mcp_session_idle_timeout_minutes: 30 });
    });
  });

  describe('POST /api/v1/settings/general/reset', () => {
    it('also resets the AI providers (spec 4.4): none is left configured', async () => {
      const created = await admin.client.post('/api/v1/settings/providers', {
        provider_type: 'llm',
        provider: 'openai_compatible',
        model: 'reset-model',
        endpoint: 'http://127.0.0.1:9/v1',
        api_key: 'sk-reset-test-0000',
      });
      expect(created.status).to.equal(201);
      expect((await admin.client.get('/api/v1/settings/providers')).body as { length?: number; items?: unknown[] }).to.satisfy(
        (b: { items?: unknown[] } | unknown[]) => (Array.isArray(b) ? b.length : (b.items?.length ?? 0)) >= 1,
      );
      expect((await admin.client.post('/api/v1/settings/general/reset')).status).to.equal(200);
      const after = (await admin.client.get('/api/v1/settings/providers')).body as { items?: unknown[] } | unknown[];
      expect(Array.isArray(after) ? after.length : (after.items?.length ?? -1)).to.equal(0);
    });

    it('restores every default and clears the registry credentials, in one transaction with the reset hooks', async () => {
      const knex = t.server.services.db.knex;
      // Stands in for the AI providers' reset: a write with the stores of the reset's transaction.
      let committed = 0;
      t.server.services.generalSettings.addResetHook({
        reset: (stores) => t.server.services.activityLog.record(stores, { action: 'ai_provider.reset', target: { type: 'ai_provider' } }),
        afterCommit: () => (committed += 1),
      });
      await put({ registry_token: seedSecret(`regtok-reset-${Date.now()}-canary`), log_retention_days: 3 });
      const res = await admin.client.post('/api/v1/settings/general/reset');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(DEFAULTS);
      expect(await knex('general_settings').first()).to.equal(undefined);
      expect(Number((await knex('activity_log').where({ action: 'ai_provider.reset' }).count({ n: '*' }))[0]!.n)).to.equal(1);
      expect(committed).to.equal(1);
      const entry = await knex('activity_log').where({ action: 'settings.general.reset' }).first();
      expect(entry).to.include({ actor_id: admin.id, outcome: 'success' });
      // In force at once: the default rate limit is the built-in one again.
      expect(t.server.services.generalSettings.current.default_rate_limit_rpm).to.equal(600);
      expect(t.server.services.outboundPolicy.checkStatic.bind(t.server.services.outboundPolicy, 'http://10.1.2.3/')).to.throw();
    });

    it('rolls everything back when a reset hook fails', async () => {
      const knex = t.server.services.db.knex;
      await put({ log_retention_days: 11 });
      // The hook of the test above writes first, then this one fails: neither write may stay.
      t.server.services.generalSettings.addResetHook({
        reset: async () => {
          throw new Error('provider store unavailable');
        },
      });
      const resets = Number((await knex('activity_log').where({ action: 'settings.general.reset' }).count({ n: '*' }))[0]!.n);
      const res = await admin.client.post('/api/v1/settings/general/reset');
      expect(res.status).to.equal(500);
      expect((await admin.client.get('/api/v1/settings/general')).body.log_retention_days).to.equal(11);
      expect(Number((await knex('activity_log').where({ action: 'ai_provider.reset' }).count({ n: '*' }))[0]!.n)).to.equal(1);
      expect(Number((await knex('activity_log').where({ action: 'settings.general.reset' }).count({ n: '*' }))[0]!.n)).to.equal(resets);
    });
  });
});

describe('general settings the environment sets: the variable wins over what is stored', function () {
  this.timeout(60000);
  let t: TestServer;

  before(async () => {
    t = await startTestServer({ env: ENV });
  });
  after(() => t.stop());

  it("shows the variables' values and names the fields they set", async () => {
    const res = await t.owner.get('/api/v1/settings/general');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ default_rate_limit_rpm: 1234 });
    expect(res.body.allowed_origins).to.deep.equal(['https://console.example.com']);
    expect(res.body.outbound_allowlist).to.deep.equal(['127.0.0.1']);
    expect(res.body.set_by_environment).to.have.members(['default_rate_limit_rpm', 'allowed_origins', 'outbound_allowlist']);
  });

  it('a stored value (saved before the variable was set) does not override the variable, also after a reload', async () => {
    const knex = t.server.services.db.knex;
    await knex('general_settings').insert({
      id: 1,
      outbound_allowlist: JSON.stringify([]),
      allowed_origins: JSON.stringify(['https://old.example.com']),
      default_rate_limit_rpm: 5,
      updated_at: new Date(),
    });
    await t.server.services.generalSettings.load();
    const current = t.server.services.generalSettings.current;
    expect(current.outbound_allowlist).to.deep.equal(['127.0.0.1']);
    expect(current.allowed_origins).to.deep.equal(['https://console.example.com']);
    expect(current.default_rate_limit_rpm).to.equal(1234);
    expect(() => t.server.services.outboundPolicy.checkStatic('http://127.0.0.1/')).to.not.throw();
    await knex('general_settings').del();
    await t.server.services.generalSettings.load();
  });

  it("a form that sends every field saves the others and stores nothing for the variables' fields", async () => {
    const res = await t.owner.put('/api/v1/settings/general', {
      log_retention_days: 9,
      default_rate_limit_rpm: 1234,
      allowed_origins: ['https://console.example.com'],
      outbound_allowlist: ['127.0.0.1'],
    });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ log_retention_days: 9, default_rate_limit_rpm: 1234 });
    const row = await t.server.services.db.knex('general_settings').first();
    expect(row).to.include({ log_retention_days: 9, default_rate_limit_rpm: null, allowed_origins: null, outbound_allowlist: null });
  });

  it('refuses another value for a field a variable sets with 422 naming the variable, and changes nothing', async () => {
    const before = (await t.owner.get('/api/v1/settings/general')).body;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ outbound_allowlist: [] }, 'outbound_allowlist', 'TOOLGATE_OUTBOUND_ALLOWLIST'],
      [{ allowed_origins: ['https://other.example.com'] }, 'allowed_origins', 'TOOLGATE_ALLOWED_ORIGINS'],
      [{ default_rate_limit_rpm: 5, log_retention_days: 3 }, 'default_rate_limit_rpm', 'TOOLGATE_DEFAULT_RATE_LIMIT_RPM'],
    ];
    for (const [body, field, variable] of cases) {
      const res = await t.owner.put('/api/v1/settings/general', body);
      expect(res.status, field).to.equal(422);
      const issue = res.body.detail.find((d: { loc: unknown[] }) => d.loc[1] === field);
      expect(issue.msg).to.include(variable);
    }
    expect((await t.owner.get('/api/v1/settings/general')).body).to.deep.equal(before);
  });
});

/** Two instances sharing one PostgreSQL schema and one Redis, as behind a load balancer. */
describe('general settings on two instances', function () {
  this.timeout(60000);
  const PG_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    const env = { DATABASE_URL: PG_URL, TOOLGATE_DB_SCHEMA: `tg_settings_${process.pid}_${Date.now() % 100000}`, REDIS_URL };
    a = await startTestServer({ env });
    b = await startTestServer({ env, noBootstrap: true, keepData: true });
    for (const s of [a, b]) await (s.server.services.bus as unknown as { ready?: () => Promise<void> }).ready?.();
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('a change on one instance is in force on the other at once (change notification, no restart)', async () => {
    const res = await a.owner.put('/api/v1/settings/general', { outbound_allowlist: ['10.0.0.0/8'], default_rate_limit_rpm: 777 });
    expect(res.status).to.equal(200);
    const onB = b.server.services;
    for (let i = 0; i < 100 && onB.generalSettings.current.default_rate_limit_rpm !== 777; i++) await new Promise((r) => setTimeout(r, 50));
    expect(onB.generalSettings.current.default_rate_limit_rpm).to.equal(777);
    expect(() => onB.outboundPolicy.checkStatic('http://10.9.8.7/')).to.not.throw();
    const key = new ApiClient(b.url, a.ownerKey);
    expect((await key.get('/api/v1/users/me')).headers.get('ratelimit-limit')).to.equal('777');
  });
});
