import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { CATCH_UP_MS } from '../../../src/redis/change-bus.js';
import { ApiClient } from '../../helpers/api-client.js';
import { FaultProxy } from '../../helpers/fault-proxy.js';
import { createUser } from '../../helpers/identity.js';
import { mcpFetch, modernRequest } from '../../helpers/mcp-http.js';
import { capturedLogs, startTestServer, TEST_DATABASE_URL, type TestServer } from '../../helpers/test-server.js';

/**
 * Two Toolgate instances sharing one PostgreSQL schema and one Redis, as behind a load balancer.
 * Uses the suite's PostgreSQL (TEST_DATABASE_URL) or the machine's local one, and the local Redis.
 */
const PG_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never happened: ${what}`);
}

describe('two instances with Redis', function () {
  this.timeout(60000);
  let a: TestServer;
  let b: TestServer;
  let proxy: FaultProxy;

  before(async () => {
    const redis = new URL(REDIS_URL);
    proxy = await new FaultProxy(redis.hostname, Number(redis.port || 6379)).start();
    const schema = `tg_multi_${process.pid}_${Date.now() % 100000}`;
    // One master key for both, as several instances sharing a database must have (sealed secrets are read on either).
    const env = {
      DATABASE_URL: PG_URL,
      TOOLGATE_DB_SCHEMA: schema,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      TOOLGATE_SECRET_KEY: randomBytes(32).toString('hex'),
    };
    a = await startTestServer({ env });
    b = await startTestServer({ env, noBootstrap: true, keepData: true });
    for (const s of [a, b]) await (s.server.services.bus as unknown as { ready?: () => Promise<void> }).ready?.();
  });
  after(async () => {
    proxy?.restore();
    await b?.stop();
    await a?.stop();
    await proxy?.stop();
  });

  it('revoking a key on one instance stops it on the other, which had it cached', async () => {
    const user = await createUser(a, 'member');
    const onB = new ApiClient(b.url, user.key);
    expect((await onB.get('/api/v1/users/me')).status).to.equal(200);
    expect((await user.client.delete(`/api/v1/users/me/api-keys/${user.keyId}`)).status).to.equal(204);
    // Well before the cache TTL (5 s): the notification went through Redis.
    await eventually(async () => (await onB.get('/api/v1/users/me', { unchecked: true })).status === 401, 'key refused on B');
  });

  it('deactivating a user on one instance stops their keys on the other', async () => {
    const user = await createUser(a, 'member');
    const admin = await createUser(a, 'admin');
    const onB = new ApiClient(b.url, user.key);
    expect((await onB.get('/api/v1/users/me')).status).to.equal(200);
    expect((await admin.client.delete(`/api/v1/users/${user.id}`)).status).to.equal(204);
    await eventually(async () => (await onB.get('/api/v1/users/me', { unchecked: true })).status === 401, 'user refused on B');
  });

  it('changing gateway settings on one instance changes /mcp/gateway on the other, which had them cached', async () => {
    const user = await createUser(a, 'admin');
    const list = async () => {
      const { headers, body } = modernRequest('tools/list');
      const reply = await mcpFetch(`${b.url}/mcp/gateway`, { body, headers: { ...headers, authorization: `Bearer ${user.key}` } });
      return reply.json.result.tools.map((x: { name: string }) => x.name) as string[];
    };
    expect(await list()).to.not.include('search');
    expect((await user.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute' })).status).to.equal(200);
    // Well before the settings cache TTL (60 s): the notification went through Redis.
    await eventually(async () => (await list()).join() === 'search,execute', 'search_execute mode on B');
  });

  it('a team membership or a share made on one instance applies on the other at once', async () => {
    const admin = await createUser(a, 'admin');
    const member = await createUser(a, 'member');
    const onB = new ApiClient(b.url, member.key);
    const team = (await admin.client.post('/api/v1/teams', { name: `Replicated ${Date.now()}` })).body;
    const bundle = (await admin.client.post('/api/v1/bundles', { name: `Replicated bundle ${Date.now()}` })).body;
    await admin.client.put(`/api/v1/bundles/${bundle.id}/shares`, {
      shares: [{ principal_type: 'team', principal_id: team.id, access: 'use' }],
    });
    // Not a member yet: B's gateway settings (its in-memory registry and memberships) refuse the bundle.
    expect((await onB.put('/api/v1/users/me/gateway-settings', { bundle_ids: [bundle.id] })).status).to.equal(400);
    expect((await admin.client.put(`/api/v1/teams/${team.id}/members/${member.id}`)).status).to.equal(200);
    await eventually(async () => b.server.services.teamMemberships.teamsOf(member.id).has(team.id), 'membership on B');
    expect((await onB.put('/api/v1/users/me/gateway-settings', { bundle_ids: [bundle.id] })).status).to.equal(200);
    // The team deleted on A: B forgets the membership and the share.
    expect((await admin.client.delete(`/api/v1/teams/${team.id}`)).status).to.equal(204);
    await eventually(async () => !b.server.services.teamMemberships.teamsOf(member.id).has(team.id), 'membership gone on B');
    await eventually(async () => b.server.services.bundleRegistry.get(bundle.id)?.shares.length === 0, 'share gone on B');
  });

  it('a tool policy rule written on one instance decides on the other at once', async () => {
    const admin = await createUser(a, 'admin');
    const target = { serverId: '00000000-0000-4000-8000-000000000001', toolName: 'drop_tables', bundleId: '' };
    expect(b.server.services.toolPolicy.decide(null, target).allowed).to.equal(true);
    const rule = (await admin.client.post('/api/v1/policies', { name: 'No drops', effect: 'deny', tools: ['drop_*'] })).body;
    await eventually(async () => !b.server.services.toolPolicy.decide(null, target).allowed, 'rule applied on B');
    expect(b.server.services.toolPolicy.decide(null, target).rule).to.deep.equal({ id: rule.id, name: 'No drops' });
    expect((await admin.client.delete(`/api/v1/policies/${rule.id}`)).status).to.equal(204);
    await eventually(async () => b.server.services.toolPolicy.decide(null, target).allowed, 'rule gone on B');
  });

  it('guardrails written on one instance apply on the other at once', async () => {
    const admin = await createUser(a, 'admin');
    const bundleId = '00000000-0000-4000-8000-000000000002';
    expect(b.server.services.liveGuardrails.planFor(bundleId).redactor?.options.pii).to.equal(false);
    expect((await admin.client.patch('/api/v1/guardrails', { redact_pii: true })).status).to.equal(200);
    await eventually(async () => b.server.services.liveGuardrails.planFor(bundleId).redactor?.options.pii === true, 'setting applied on B');
    const created = await admin.client.post('/api/v1/interceptors', {
      name: 'Shared',
      url: 'https://hooks.example.com/toolgate',
      secret: 'shared-secret-0123456789',
      phases: ['before'],
      failure_mode: 'open',
    });
    expect(created.status, created.text).to.equal(201);
    await eventually(async () => b.server.services.liveGuardrails.planFor(bundleId).before.length === 1, 'interceptor applied on B');
    // B opened the sealed secret with the shared master key.
    expect(b.server.services.liveGuardrails.planFor(bundleId).before[0]!.secret).to.equal('shared-secret-0123456789');
    expect((await admin.client.delete(`/api/v1/interceptors/${created.body.id}`)).status).to.equal(204);
    expect((await admin.client.patch('/api/v1/guardrails', { redact_pii: false })).status).to.equal(200);
    await eventually(async () => b.server.services.liveGuardrails.planFor(bundleId).before.length === 0, 'interceptor gone on B');
  });

  it('shares one rate limit: rpm requests across both instances, then 429 on either', async () => {
    const user = await createUser(a, 'member', { rateLimitRpm: 6 });
    const onA = user.client;
    const onB = new ApiClient(b.url, user.key);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? onB : onA).get('/api/v1/users/me')).status);
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 200]);
    const res = await onB.get('/api/v1/users/me');
    expect(res.status).to.equal(429);
    expect(res.body.code).to.equal('rate_limited');
    expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
    expect((await onA.get('/api/v1/users/me')).status).to.equal(429);
  });

  it('never makes the probes wait on Redis: while it swallows packets, /health and /ready answer at once', async () => {
    proxy.blackhole();
    try {
      for (const probe of ['/health', '/ready']) {
        const t0 = performance.now();
        const res = await fetch(`${b.url}${probe}`);
        const ms = performance.now() - t0;
        expect(res.status).to.equal(200);
        // A request that waits on Redis here gives up only after CATCH_UP_MS (500 ms).
        expect(ms, `${probe} took ${ms.toFixed(0)} ms`).to.be.below(CATCH_UP_MS * 0.8);
      }
    } finally {
      proxy.restore();
    }
  });

  it('keeps serving when Redis goes away (per-instance limits, a logged warning) and shares again when it returns', async () => {
    const user = await createUser(a, 'member', { rateLimitRpm: 4 });
    const onA = user.client;
    const onB = new ApiClient(b.url, user.key);
    proxy.block();
    const logsBefore = capturedLogs.length;
    try {
      // Each instance now counts alone: 4 on A and 4 on B pass, the 5th on A is refused.
      for (let i = 0; i < 4; i++) expect((await onA.get('/api/v1/users/me')).status).to.equal(200);
      for (let i = 0; i < 4; i++) expect((await onB.get('/api/v1/users/me')).status).to.equal(200);
      expect((await onA.get('/api/v1/users/me')).status).to.equal(429);
      const warned = capturedLogs.slice(logsBefore).some((l) => l.includes('redis unreachable'));
      expect(warned, 'a warning about Redis in the log').to.equal(true);
    } finally {
      proxy.restore();
    }
    const fresh = await createUser(a, 'member', { rateLimitRpm: 2 });
    const freshOnB = new ApiClient(b.url, fresh.key);
    await eventually(async () => {
      const limiter = a.server.services.rateLimiter as unknown as { redis?: { status: string } };
      const limiterB = b.server.services.rateLimiter as unknown as { redis?: { status: string } };
      return limiter.redis?.status === 'ready' && limiterB.redis?.status === 'ready';
    }, 'redis reconnected');
    expect((await fresh.client.get('/api/v1/users/me')).status).to.equal(200);
    expect((await freshOnB.get('/api/v1/users/me')).status).to.equal(200);
    expect((await fresh.client.get('/api/v1/users/me')).status).to.equal(429);
  });
});
