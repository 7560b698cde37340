import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { ManualClock } from '../../../../src/lib/clock.js';
import { runAsActor } from '../../../../src/services/actor-context.js';
import type { CallRecord } from '../../../../src/domain/call-records.js';
import { expectedPercentile, failed, hourOf, HOUR_MS, rawRecords, syntheticRecords, type RawRecord } from '../../../helpers/call-stats.js';
import { setupFixtureBundle, type FixtureBundle } from '../../../helpers/fixture-bundle.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { RawSession } from '../../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { register, waitFor } from '../../../helpers/upstreams.js';

const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Checks a reported percentile against the exact one: the exact value's bucket, within 1 %. */
function expectPercentile(reported: number | null, values: number[], p: 50 | 95 | 99, what: string): void {
  const { exact, reported: expected } = expectedPercentile(values, p);
  expect(reported, `${what} p${p}`).to.equal(expected);
  if (exact !== null && exact > 0) expect(Math.abs(reported! - exact) / exact, `${what} p${p} error`).to.be.at.most(0.01);
}

/** The brute force: every figure of the dashboard, from raw rows. */
async function bruteForce(t: TestServer, now: Date) {
  const knex: Knex = t.server.services.db.knex;
  const records = await rawRecords(knex);
  const to = hourOf(now) + HOUR_MS;
  const from = to - 24 * HOUR_MS;
  const inWindow = records.filter((r) => r.occurred_at.getTime() >= from && r.occurred_at.getTime() < to);
  const servers = (await knex('mcp_servers').select('id', 'name')) as { id: string; name: string }[];
  const currentName = new Map(servers.map((s) => [s.id, s.name]));
  const perServer = new Map<string, { calls: number; errors: number; latency: number; name: string }>();
  for (const r of inWindow) {
    if (!r.server_id) continue;
    const e = perServer.get(r.server_id) ?? { calls: 0, errors: 0, latency: 0, name: currentName.get(r.server_id) ?? r.server_name! };
    e.calls += 1;
    e.errors += failed(r) ? 1 : 0;
    e.latency += r.latency_ms;
    perServer.set(r.server_id, e);
  }
  const ranked = [...perServer]
    .map(([id, e]) => ({ id, ...e }))
    .sort((a, b) => b.calls - a.calls || cmp(a.name, b.name) || cmp(a.id, b.id));
  return { records, inWindow, from, to, ranked };
}

/** The activity feed recomputed from raw rows (records and activity log, names joined by hand). */
async function bruteActivity(t: TestServer, filter: 'all' | 'tools' | 'errors' | 'admin', records: RawRecord[]) {
  const knex: Knex = t.server.services.db.knex;
  const users = new Map(
    ((await knex('users').select('id', 'name', 'email')) as { id: string; name: string; email: string }[]).map((u) => [u.id, u]),
  );
  const bundles = new Map(((await knex('bundles').select('id', 'name')) as { id: string; name: string }[]).map((b) => [b.id, b.name]));
  const keys = new Map(
    ((await knex('api_keys').select('id', 'key_prefix')) as { id: string; key_prefix: string }[]).map((k) => [k.id, k.key_prefix]),
  );
  const admin = (await knex('activity_log').select('*')) as Record<string, any>[];
  const calls = records
    .filter((r) => (filter === 'errors' ? failed(r) : filter !== 'admin'))
    .map((r) => {
      const user = r.user_id ? users.get(r.user_id) : undefined;
      const details: Record<string, unknown> = { endpoint: r.endpoint, call_status: r.status, tool_name: r.tool_name };
      if (r.bundle_id) details.bundle_id = r.bundle_id;
      if (r.bundle_id && bundles.has(r.bundle_id)) details.bundle_name = bundles.get(r.bundle_id);
      if (r.server_id) details.server_id = r.server_id;
      if (r.server_name) details.server_name = r.server_name;
      if (r.user_id) details.user_id = r.user_id;
      if (r.api_key_id && keys.has(r.api_key_id)) details.api_key_prefix = keys.get(r.api_key_id);
      if (r.error) details.error = r.error;
      return {
        id: r.call_id,
        kind: failed(r) ? 'error' : 'tool_call',
        timestamp: r.occurred_at.toISOString(),
        actor: r.user_id ? user?.name || user?.email || null : r.bundle_id ? (bundles.get(r.bundle_id) ?? null) : null,
        action: 'tools/call',
        target: r.server_name ? `${r.server_name}.${r.tool_name}` : r.tool_name,
        status: failed(r) ? 'error' : 'success',
        latency_ms: r.latency_ms,
        details,
      };
    });
  const admins = admin
    .filter((a) => (filter === 'errors' ? a.outcome === 'error' : filter !== 'tools'))
    .map((a) => ({
      id: a.id,
      kind: 'admin',
      timestamp: (a.occurred_at as Date).toISOString(),
      actor: a.actor_name,
      action: a.action,
      target: a.target_name ?? a.target_id,
      status: a.outcome,
      latency_ms: null,
      details: {
        ...a.details,
        ...(a.target_type ? { target_type: a.target_type } : {}),
        ...(a.target_id ? { target_id: a.target_id } : {}),
      },
    }));
  return [...calls, ...admins].sort((a, b) => cmp(b.timestamp, a.timestamp) || cmp(b.id, a.id)).slice(0, 50);
}

describe('GET /api/v1/dashboard, /dashboard/charts, /dashboard/activity', function () {
  this.timeout(120000);
  let t: TestServer;
  let clock: ManualClock;
  let fixture: FixtureBundle;
  let admin: TestUser;
  let member: TestUser;
  const deletedServer = { id: randomUUID(), name: 'deleted-server' };

  before(async () => {
    clock = new ManualClock();
    t = await startTestServer({ clock, env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*' } });
    admin = await createUser(t, 'admin');
    member = await createUser(t, 'member');
    // Key states the headline count must tell apart: expired, revoked, owned by a deactivated user.
    const expired = await createUser(t, 'member');
    await t.server.services.db
      .knex('api_keys')
      .where({ id: expired.keyId })
      .update({ expires_at: new Date(clock.now().getTime() - 1000) });
    const revoked = await createUser(t, 'member');
    expect((await revoked.client.delete(`/api/v1/users/me/api-keys/${revoked.keyId}`)).status).to.equal(204);
    const gone = await createUser(t, 'member');
    expect((await t.owner.patch(`/api/v1/users/${gone.id}`, { is_active: false })).status).to.equal(200);

    // A real upstream, connected, with real calls through a bundle (the recorded MCP path).
    fixture = await setupFixtureBundle(t.owner, t.url, { tools: ['echo', 'test_error_handling'] });
    const session = new RawSession(fixture.endpoint, '2025-11-25');
    await session.initialize();
    for (let i = 0; i < 3; i++) expect((await session.call('echo', { text: `hi ${i}` })).result.isError).to.not.equal(true);
    expect((await session.call('test_error_handling')).result.isError).to.equal(true);
    // A server that cannot connect (status error), a disabled one, and a deleted one that keeps its calls.
    await register(t.owner, { name: 'zeta-down', transport: 'streamable_http', url: 'http://127.0.0.1:1/mcp' });
    await register(t.owner, { name: 'alpha-off', transport: 'streamable_http', url: 'http://127.0.0.1:2/mcp', enabled: false });
    await waitFor('zeta-down in error', async () => (await t.owner.get('/api/v1/servers?status=error')).body.total >= 1);
    await t.server.services.callRecorder.flush();

    // Synthetic history: 30 hours back with empty hours, hour and bucket edges, every status.
    const servers = (await t.server.services.db.knex('mcp_servers').select('id', 'name')) as { id: string; name: string }[];
    const now = clock.now();
    const records: CallRecord[] = syntheticRecords({
      now,
      count: 4000,
      hours: 30,
      servers: [...servers, deletedServer],
      seed: 12,
      emptyHours: [2, 5, 6, 20, 23],
    });
    // Some calls by a user with a key, some anonymous through the bundle.
    records.forEach((r, i) => {
      if (i % 5 === 0) Object.assign(r, { user_id: admin.id, api_key_id: admin.keyId, endpoint: 'gateway', bundle_id: null });
      else if (i % 5 === 1)
        Object.assign(r, {
          bundle_id: fixture.bundleId,
          endpoint: 'bundle',
          error: failed(r) ? 'Upstream server x did not answer in time' : null,
        });
    });
    // The window's edges: the first millisecond in, the last one before it out.
    const from = hourOf(now) - 23 * HOUR_MS;
    records.push(
      { ...records[0]!, occurred_at: new Date(from), latency_ms: 12.5 },
      { ...records[1]!, occurred_at: new Date(from - 1), latency_ms: 99999 },
    );
    for (let i = 0; i < records.length; i += 500) await t.server.services.stores.callRecords.insertMany(records.slice(i, i + 500));

    // Admin activity at known times, by users and by the system, successes and failures.
    for (let i = 0; i < 30; i++) {
      clock.advance(1000);
      await runAsActor({ userId: admin.id, name: 'admin user' }, () =>
        t.server.services.activityLog.append({
          action: i % 3 ? 'bundle.update' : 'server.refresh',
          target: { type: i % 3 ? 'bundle' : 'server', id: randomUUID(), name: i % 4 ? `target ${i}` : null },
          outcome: i % 7 === 0 ? 'error' : 'success',
          details: { n: i },
        }),
      );
    }
    await t.server.services.activityLog.append({ action: 'retention.purge', target: { type: 'settings', name: 'retention' } });
  });
  after(() => t.stop());

  it('answers stats, health, activity and top servers equal to a brute-force computation', async () => {
    const res = await admin.client.get('/api/v1/dashboard');
    expect(res.status).to.equal(200);
    const now = clock.now();
    const { inWindow, ranked, records } = await bruteForce(t, now);
    const knex = t.server.services.db.knex;
    const stats = res.body.stats;
    const errors = inWindow.filter(failed).length;
    expect(stats.calls_24h).to.equal(inWindow.length).and.be.greaterThan(1000);
    expect(stats.errors_24h).to.equal(errors);
    expect(stats.error_rate_24h).to.be.closeTo(errors / inWindow.length, 1e-12);
    const latencies = inWindow.map((r) => r.latency_ms);
    expectPercentile(stats.p50_latency_ms_24h, latencies, 50, '24h');
    expectPercentile(stats.p95_latency_ms_24h, latencies, 95, '24h');

    // Connection states are live: the server that cannot connect is `connecting` during each retry
    // and `error` between them. Compare the dashboard with the server list read right after it,
    // until both were read between two state changes.
    let servers: any[] = [];
    let dash = res.body;
    let health: typeof stats = stats;
    await waitFor('the dashboard and the server list read at one connection state', async () => {
      dash = (await admin.client.get('/api/v1/dashboard')).body;
      health = dash.stats;
      servers = (await t.owner.get('/api/v1/servers?page_size=100')).body.items as any[];
      return (
        health.servers_error === servers.filter((s) => s.status === 'error').length &&
        health.servers_connected === servers.filter((s) => s.status === 'connected').length &&
        health.servers_error === 1
      );
    });
    expect(health.servers_total).to.equal(servers.length).and.equal(3);
    expect(health.servers_connected)
      .to.equal(servers.filter((s) => s.status === 'connected').length)
      .and.equal(1);
    expect(health.servers_error)
      .to.equal(servers.filter((s) => s.status === 'error').length)
      .and.equal(1);
    const tools = (await knex('mcp_tools').select('enabled')) as { enabled: boolean }[];
    expect(stats.tools_total).to.equal(tools.length).and.be.greaterThan(5);
    expect(stats.tools_enabled).to.equal(tools.filter((x) => x.enabled).length);
    expect(stats.bundles_total)
      .to.equal(Number((await knex('bundles').count({ n: '*' }))[0]!.n))
      .and.equal(1);
    expect(stats.users_total)
      .to.equal(Number((await knex('users').where({ is_active: true }).count({ n: '*' }))[0]!.n))
      .and.equal(5);
    const keys = (await knex('api_keys as k').join('users as u', 'u.id', 'k.user_id').select('k.*', 'u.is_active as user_active')) as any[];
    const usable = keys.filter(
      (k) =>
        k.is_active && k.user_active && (!k.expires_at || k.expires_at > now) && (!k.grace_period_ends_at || k.grace_period_ends_at > now),
    );
    expect(stats.api_keys_active).to.equal(usable.length).and.equal(3);

    // Health: every server, errors first, then by name; status and facts as the servers API says.
    expect(dash.health.map((h: any) => h.name)).to.deep.equal(
      [...servers]
        .sort((a, b) => (a.status === 'error' ? 0 : 1) - (b.status === 'error' ? 0 : 1) || cmp(a.name, b.name))
        .map((s) => s.name),
    );
    for (const h of dash.health) {
      const s = servers.find((x) => x.id === h.server_id);
      expect(h.status).to.equal(s.status);
      expect(h.last_error).to.equal(s.last_error);
      if (h.status === 'connected') expect(h.last_checked_at).to.be.a('string');
      if (h.status === 'disabled') expect(h.last_checked_at).to.equal(null);
    }

    // Top servers: the ten busiest (deleted server included, under its recorded name).
    expect(res.body.top_servers).to.deep.equal(
      ranked
        .slice(0, 10)
        .map((s) => ({ server_id: s.id, name: s.name, calls: s.calls, errors: s.errors, avg_latency_ms: round3(s.latency / s.calls) })),
    );
    expect(res.body.top_servers.map((s: any) => s.name)).to.include(deletedServer.name);
    expect(res.body.activity).to.deep.equal({ filter: 'all', items: await bruteActivity(t, 'all', records) });
    expect(res.body.generated_at).to.equal(now.toISOString());
  });

  it('answers hourly calls, errors and latency percentiles, and server load, equal to a brute-force computation', async () => {
    const res = await admin.client.get('/api/v1/dashboard/charts');
    expect(res.status).to.equal(200);
    const { inWindow, from, to, ranked } = await bruteForce(t, clock.now());
    expect(res.body.window).to.deep.equal({ from: new Date(from).toISOString(), to: new Date(to).toISOString(), bucket_seconds: 3600 });
    expect(res.body.tool_calls).to.have.length(24);
    expect(res.body.latency).to.have.length(24);
    let emptyHours = 0;
    for (let i = 0; i < 24; i++) {
      const start = from + i * HOUR_MS;
      const hour = inWindow.filter((r) => hourOf(r.occurred_at) === start);
      expect(res.body.tool_calls[i]).to.deep.equal({
        bucket: new Date(start).toISOString(),
        calls: hour.length,
        errors: hour.filter(failed).length,
      });
      const latency = res.body.latency[i];
      expect(latency.bucket).to.equal(new Date(start).toISOString());
      const values = hour.map((r) => r.latency_ms);
      if (values.length === 0) {
        emptyHours += 1;
        expect(latency).to.deep.equal({ bucket: latency.bucket, p50_ms: null, p95_ms: null, p99_ms: null });
      }
      expectPercentile(latency.p50_ms, values, 50, latency.bucket);
      expectPercentile(latency.p95_ms, values, 95, latency.bucket);
      expectPercentile(latency.p99_ms, values, 99, latency.bucket);
    }
    expect(emptyHours, 'empty hours in the window').to.be.at.least(3);
    expect(res.body.server_load).to.deep.equal(ranked.map((s) => ({ server_id: s.id, name: s.name, calls: s.calls })));
  });

  for (const filter of ['all', 'tools', 'errors', 'admin'] as const) {
    it(`answers the activity feed for activity_filter=${filter} equal to a brute-force computation`, async () => {
      const res = await admin.client.get(`/api/v1/dashboard/activity?activity_filter=${filter}`);
      expect(res.status).to.equal(200);
      const expected = await bruteActivity(t, filter, await rawRecords(t.server.services.db.knex));
      expect(res.body).to.deep.equal({ filter, items: expected });
      // Admin: the 31 entries appended above, and the 7 the set-up's real admin operations recorded
      // (bootstrap, key revoke, user deactivation, three server registrations, the bundle).
      expect(expected).to.have.length(filter === 'admin' ? 38 : 50);
      if (filter === 'errors') expect(expected.some((e) => e.kind === 'admin') && expected.some((e) => e.kind === 'error')).to.equal(true);
    });
  }

  it('shows the calls made through the bundle endpoint, with the bundle as actor', async () => {
    const records = (await rawRecords(t.server.services.db.knex)).filter(
      (r) => r.server_id === fixture.serverId && r.tool_id !== null && r.user_id === null,
    );
    const real = records.filter((r) => r.tool_name === 'echo' || r.tool_name === 'test_error_handling');
    expect(real.length).to.be.at.least(4);
    expect(real.filter((r) => r.tool_name === 'test_error_handling').every((r) => r.status === 'tool_error')).to.equal(true);
    expect(real.every((r) => r.bundle_id === fixture.bundleId && r.endpoint === 'bundle' && r.server_name)).to.equal(true);
  });

  it('moves with the clock: an hour later the oldest hour leaves the window', async () => {
    clock.advance(HOUR_MS);
    const res = await admin.client.get('/api/v1/dashboard/charts');
    const { inWindow, from } = await bruteForce(t, clock.now());
    expect(res.body.window.from).to.equal(new Date(from).toISOString());
    expect(res.body.tool_calls.reduce((n: number, b: any) => n + b.calls, 0)).to.equal(inWindow.length);
    expect(res.body.tool_calls[23]).to.deep.equal({ bucket: new Date(from + 23 * HOUR_MS).toISOString(), calls: 0, errors: 0 });
    const dash = await admin.client.get('/api/v1/dashboard?activity_filter=admin');
    expect(dash.body.stats.calls_24h).to.equal(inWindow.length);
    expect(dash.body.activity.filter).to.equal('admin');
  });

  it('is for admins and owners: members get 403, anonymous callers 401, bad filters 422', async () => {
    for (const path of ['/api/v1/dashboard', '/api/v1/dashboard/charts', '/api/v1/dashboard/activity']) {
      expect((await member.client.get(path)).status, path).to.equal(403);
      expect((await t.anon.get(path)).status, path).to.equal(401);
      expect((await t.owner.get(path)).status, path).to.equal(200);
    }
    const bad = await admin.client.get('/api/v1/dashboard?activity_filter=everything');
    expect(bad.status).to.equal(422);
    expect(bad.body.detail[0].loc).to.deep.equal(['query', 'activity_filter']);
  });

  it('answers zeros and nulls on an installation without calls', async () => {
    const empty = await startTestServer();
    try {
      const dash = await empty.owner.get('/api/v1/dashboard');
      expect(dash.status).to.equal(200);
      expect(dash.body.stats).to.include({
        calls_24h: 0,
        errors_24h: 0,
        error_rate_24h: 0,
        p50_latency_ms_24h: null,
        p95_latency_ms_24h: null,
      });
      expect(dash.body.top_servers).to.deep.equal([]);
      const charts = await empty.owner.get('/api/v1/dashboard/charts');
      expect(charts.body.tool_calls.every((b: any) => b.calls === 0 && b.errors === 0)).to.equal(true);
      expect(charts.body.latency.every((b: any) => b.p50_ms === null && b.p99_ms === null)).to.equal(true);
      expect(charts.body.server_load).to.deep.equal([]);
    } finally {
      await empty.stop();
    }
  });
});
