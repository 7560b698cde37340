import { expect } from 'chai';
import { ApiClient } from '../../helpers/api-client.js';
import { FaultProxy } from '../../helpers/fault-proxy.js';
import { createUser } from '../../helpers/identity.js';
import { mcpFetch, modernRequest, RawSession } from '../../helpers/mcp-http.js';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../helpers/test-upstreams.js';

/**
 * PostgreSQL behind a network that swallows packets (no reset, no answer): REST requests must
 * still answer in bounded time, with 503 database_unavailable, and the MCP endpoints keep serving
 * from memory. Uses the suite's PostgreSQL (TEST_DATABASE_URL) or the machine's local one.
 */
const PG_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The configured acquire and statement timeouts of this server. */
const TIMEOUT_MS = 1000;
/** What "bounded" means here: the timeout plus room for a loaded machine, far below a hang. */
const BOUND_MS = TIMEOUT_MS + 2500;

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

describe('REST requests while the database is blackholed', function () {
  this.timeout(120000);
  let proxy: FaultProxy;
  let t: TestServer;
  let member: Awaited<ReturnType<typeof createUser>>;
  let bundleUrl: string;

  before(async () => {
    const target = new URL(PG_URL);
    proxy = await new FaultProxy(target.hostname, Number(target.port || 5432)).start();
    const viaProxy = new URL(PG_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    t = await startTestServer({
      env: {
        DATABASE_URL: viaProxy.toString(),
        TOOLGATE_DB_SCHEMA: `tg_blackhole_${process.pid}`,
        TOOLGATE_DB_ACQUIRE_TIMEOUT_MS: String(TIMEOUT_MS),
        TOOLGATE_DB_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS),
      },
      start: { upstreams: new TestUpstreams() },
    });
    member = await createUser(t, 'member');
    const { tools } = putFixtureServer(t.server.services.catalog, 'fixture', [{ name: 'echo' }]);
    const created = await t.owner.post('/api/v1/bundles', { name: 'outage', tools: [{ tool_id: tools.echo!.id }] });
    bundleUrl = `${t.url}/mcp/bundle/${created.body.bundle_key}`;
    expect((await member.client.get('/api/v1/users/me/api-keys')).status).to.equal(200);
  });
  after(async () => {
    proxy?.restore();
    await t?.stop();
    await proxy?.stop();
  });

  it('answers every REST request within the timeout with 503 database_unavailable and Retry-After, never hangs', async () => {
    const session = new RawSession(bundleUrl, '2025-11-25');
    await session.initialize();
    const gateway = (key: string, method: string, params: Record<string, unknown> = {}) => {
      const { headers, body } = modernRequest(method, params);
      return mcpFetch(`${t.url}/mcp/gateway`, { body, headers: { ...headers, authorization: `Bearer ${key}` } });
    };
    expect((await gateway(t.ownerKey, 'tools/list')).status).to.equal(200);
    proxy.blackhole();
    try {
      const stranger = new ApiClient(t.url, `tg_usr_live_${'Q'.repeat(43)}`);
      const requests: [string, () => Promise<{ status: number; body: any; headers: Headers }>][] = [
        // A read with a known key (authenticated from memory, the handler's query cannot answer).
        ['GET own keys', () => member.client.get('/api/v1/users/me/api-keys')],
        // A write in a transaction.
        ['POST bundle', () => t.owner.post('/api/v1/bundles', { name: 'during the outage' })],
        // A key the server has never seen: its lookup cannot answer either.
        ['GET with an unknown key', () => stranger.get('/api/v1/bundles')],
      ];
      // Several at once, twice: the pool's connections are all stuck, and then replaced.
      for (let round = 0; round < 2; round += 1) {
        const results = await Promise.all(requests.map(([, fn]) => timed(fn)));
        results.forEach(({ value, ms }, i) => {
          const what = `${requests[i]![0]} (round ${round + 1})`;
          expect(value.status, what).to.equal(503);
          expect(value.body.code, what).to.equal('database_unavailable');
          expect(value.headers.get('retry-after'), what).to.match(/^\d+$/);
          expect(ms, what).to.be.lessThan(BOUND_MS);
        });
      }
      // MCP keeps working from memory meanwhile.
      const { value: answer, ms } = await timed(() => session.call('echo', { text: 'still here' }));
      expect(answer.result.isError ?? false).to.equal(false);
      expect(ms).to.be.lessThan(BOUND_MS);
      // So does the gateway for a user it has served; one whose settings it never read gets 503 in time.
      const viaGateway = await timed(() => gateway(t.ownerKey, 'tools/call', { name: 'echo', arguments: { text: 'still here' } }));
      expect(viaGateway.value.json.result.isError ?? false).to.equal(false);
      expect(viaGateway.ms).to.be.lessThan(BOUND_MS);
      const cold = await timed(() => gateway(member.key, 'tools/list'));
      expect(cold.value.status).to.equal(503);
      expect(cold.value.headers.get('retry-after')).to.match(/^\d+$/);
      expect(cold.value.json.error.code).to.equal(-32603);
      expect(cold.ms).to.be.lessThan(BOUND_MS);
      // /ready says so too, in time.
      const ready = await timed(() => t.anon.get('/ready'));
      expect(ready.value.status).to.equal(503);
      expect(ready.ms).to.be.lessThan(BOUND_MS);
    } finally {
      proxy.restore();
    }
  });

  it('serves REST again once the database answers (stuck connections were dropped, not reused)', async () => {
    let status = 0;
    for (let i = 0; i < 40 && status !== 200; i += 1) {
      status = (await member.client.get('/api/v1/users/me/api-keys', { unchecked: true })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).to.equal(200);
    const created = await t.owner.post('/api/v1/bundles', { name: 'after the outage' });
    expect(created.status).to.equal(201);
  });
});
