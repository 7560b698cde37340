import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createUser, type TestUser } from '../../helpers/identity.js';
import { RawSession } from '../../helpers/mcp-http.js';
import { containsSecret, seedSecret } from '../../helpers/secrets.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../helpers/test-upstreams.js';
import { register, waitFor } from '../../helpers/upstreams.js';

/** The value of one series in Prometheus text (`name{labels}` exactly as written), or 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** `name{a="x",b="y"}` with labels in the given order (prom-client writes them in declaration order). */
const series = (name: string, labels: Record<string, string | number>): string =>
  `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;

describe('GET /metrics (Prometheus)', function () {
  this.timeout(120000);
  let t: TestServer;
  let admin: TestUser;
  let member: TestUser;
  let bundleKey = '';
  let endpoint = '';
  let serverId = '';
  const token = seedSecret(`mt-${randomBytes(24).toString('hex')}`);
  const ARGUMENT = 'argument-canary-5d1e7a';
  const TOOL = 'echo_canary_tool';

  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_METRICS_TOKEN: token }, start: { upstreams: new TestUpstreams() } });
    admin = await createUser(t, 'admin', { scopes: ['api:read'] });
    member = await createUser(t, 'member');
    const fixture = putFixtureServer(t.server.services.catalog, 'metrics-fixture', [{ name: TOOL }, { name: 'vanished' }]);
    serverId = fixture.serverId;
    const created = await t.owner.post('/api/v1/bundles', {
      name: 'metered',
      tools: [{ tool_id: fixture.tools[TOOL]!.id }, { tool_id: fixture.tools.vanished!.id }],
    });
    bundleKey = seedSecret(created.body.bundle_key);
    endpoint = `${t.url}/mcp/bundle/${bundleKey}`;
  });
  after(() => t?.stop());

  const scrape = async (): Promise<string> => {
    const res = await admin.client.get('/metrics');
    expect(res.status, res.text).to.equal(200);
    return res.text;
  };

  it('is not open: 401 without a credential or with a wrong token, 403 for members and for keys without api:read', async () => {
    const anon = await t.anon.get('/metrics');
    expect(anon.status).to.equal(401);
    expect(anon.body.code).to.be.a('string');
    expect((await t.anon.get('/metrics', { token: `${token}x` })).status).to.equal(401);
    expect((await t.anon.get('/metrics', { token: 'not-the-token' })).status).to.equal(401);
    expect((await member.client.get('/metrics')).status).to.equal(403);
    const writeOnly = await createUser(t, 'owner', { scopes: ['api:write'] });
    const refused = await writeOnly.client.get('/metrics');
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('insufficient_scope');
    expect((await t.owner.post('/metrics')).status).to.equal(405);
  });

  it('answers admins and owners (API key or the metrics token) in the Prometheus text format', async () => {
    for (const res of [await admin.client.get('/metrics'), await t.owner.get('/metrics'), await t.anon.get('/metrics', { token })]) {
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      expect(res.text).to.match(/^# HELP /m);
      expect(res.text).to.match(/^# TYPE toolgate_http_requests_total counter$/m);
    }
  });

  it('counts REST requests per operationId (route templates, never raw paths)', async () => {
    const ok = series('toolgate_http_requests_total', { route: 'getBundle', method: 'GET', status: '2xx' });
    const notFound = series('toolgate_http_requests_total', { route: 'getBundle', method: 'GET', status: '4xx' });
    const before = await scrape();
    const bundles = (await t.owner.get('/api/v1/bundles')).body.items as { id: string }[];
    expect((await t.owner.get(`/api/v1/bundles/${bundles[0]!.id}`)).status).to.equal(200);
    expect((await t.owner.get('/api/v1/bundles/6b1f3c7e-0000-4000-8000-00000000abcd')).status).to.equal(404);
    const odd = `nope-${randomBytes(6).toString('hex')}`;
    expect((await t.owner.get(`/api/v1/${odd}`)).status).to.equal(404);
    const after = await scrape();
    expect(sample(after, ok) - sample(before, ok)).to.equal(1);
    expect(sample(after, notFound) - sample(before, notFound)).to.equal(1);
    const unmatched = series('toolgate_http_requests_total', { route: 'unmatched', method: 'GET', status: '4xx' });
    expect(sample(after, unmatched) - sample(before, unmatched)).to.equal(1);
    expect(sample(after, 'toolgate_http_request_duration_seconds_count{route="getBundle"}')).to.be.at.least(2);
    expect(after).to.not.include(bundles[0]!.id);
    expect(after).to.not.include(odd);
  });

  it('counts MCP requests per method and tool calls per server, with latency histograms', async () => {
    const calls = series('toolgate_tool_calls_total', { server_id: serverId, status: 'ok' });
    const failedCalls = series('toolgate_tool_call_errors_total', { server_id: serverId });
    const mcpCalls = series('toolgate_mcp_requests_total', { endpoint: 'bundle', method: 'tools/call', outcome: 'ok' });
    const duration = `toolgate_tool_call_duration_seconds_count{server_id="${serverId}"}`;
    const before = await scrape();
    const session = new RawSession(endpoint, '2025-11-25');
    await session.initialize();
    expect((await session.call(TOOL, { text: ARGUMENT })).result.isError).to.not.equal(true);
    expect((await session.call(TOOL, { text: ARGUMENT })).result.isError).to.not.equal(true);
    const invented = `x-invented/${randomBytes(4).toString('hex')}`;
    await session.request(invented);
    const after = await scrape();
    expect(sample(after, calls) - sample(before, calls)).to.equal(2);
    expect(sample(after, duration) - sample(before, duration)).to.equal(2);
    expect(sample(after, failedCalls) - sample(before, failedCalls)).to.equal(0);
    expect(sample(after, mcpCalls) - sample(before, mcpCalls)).to.equal(2);
    expect(
      sample(after, series('toolgate_mcp_requests_total', { endpoint: 'bundle', method: 'initialize', outcome: 'ok' })),
    ).to.be.at.least(1);
    // An unknown method is counted under `other`: clients cannot mint series.
    expect(sample(after, series('toolgate_mcp_requests_total', { endpoint: 'bundle', method: 'other', outcome: 'error' }))).to.equal(1);
    expect(after).to.not.include(invented);
    expect(sample(after, series('toolgate_http_requests_total', { route: 'mcp_bundle', method: 'POST', status: '2xx' }))).to.be.at.least(4);
    expect(sample(after, 'toolgate_mcp_sessions')).to.be.at.least(1);

    // A call the upstream refuses counts as an error of its server; an unknown tool names no
    // server, so only its MCP request counts (as an error).
    const mcpErrors = series('toolgate_mcp_requests_total', { endpoint: 'bundle', method: 'tools/call', outcome: 'error' });
    const mid = await scrape();
    await session.call('vanished');
    await session.call('no_such_tool');
    const last = await scrape();
    expect(sample(last, failedCalls) - sample(mid, failedCalls)).to.equal(1);
    expect(sample(last, series('toolgate_tool_calls_total', { server_id: serverId, status: 'error' }))).to.equal(1);
    expect(sample(last, mcpErrors) - sample(mid, mcpErrors)).to.be.at.least(1);
    expect(last).to.not.include('no_such_tool');
  });

  it('reports upstream status per server id, the database pool and process metrics', async () => {
    const down = await register(t.owner, { name: 'metrics-down', transport: 'streamable_http', url: 'http://127.0.0.1:1/mcp' });
    await waitFor('upstream in error', async () => (await t.owner.get(`/api/v1/servers/${down.id}`)).body.status === 'error');
    const text = await scrape();
    expect(sample(text, series('toolgate_upstream_up', { server_id: down.id, status: 'error' }))).to.equal(0);
    expect(text).to.include(`toolgate_upstream_up{server_id="${down.id}",status="error"} 0`);
    expect(text).to.match(/^toolgate_db_pool_connections\{state="used"\} \d+$/m);
    expect(text).to.match(/^toolgate_process_cpu_user_seconds_total \d/m);
    expect(text).to.match(/^toolgate_nodejs_eventloop_lag_seconds \d/m);
    expect(text).to.not.include('metrics-down');
  });

  it('counts rate-limit rejections', async () => {
    const limited = await createUser(t, 'admin', { rateLimitRpm: 1 });
    const metric = series('toolgate_rate_limit_rejections_total', { subject: 'api_key' });
    const before = sample(await scrape(), metric);
    expect((await limited.client.get('/api/v1/users/me')).status).to.equal(200);
    expect((await limited.client.get('/api/v1/users/me')).status).to.equal(429);
    expect(sample(await scrape(), metric) - before).to.equal(1);
  });

  it('never shows a secret, a bundle key, a tool name or an argument', async () => {
    const text = (await t.anon.get('/metrics', { token })).text;
    for (const secret of [token, bundleKey, t.ownerKey, admin.key, member.key]) expect(containsSecret(text, secret)).to.equal(false);
    expect(text).to.not.include(ARGUMENT);
    expect(text).to.not.include(TOOL);
    expect(text).to.not.include('/mcp/bundle/');
    // Every label value is bounded: routes are operationIds or fixed words.
    const routes = new Set([...text.matchAll(/route="([^"]+)"/g)].map((m) => m[1]));
    for (const r of routes) expect(r).to.match(/^(?:[a-z][A-Za-z]+|mcp_bundle|mcp_gateway|unmatched|other)$/);
  });
});
