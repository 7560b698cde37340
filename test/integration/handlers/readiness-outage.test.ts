import { expect } from 'chai';
import { FaultProxy } from '../../helpers/fault-proxy.js';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../../helpers/test-server.js';

/**
 * Readiness against a PostgreSQL server reached through a proxy the test can cut. Uses the
 * suite's PostgreSQL (TEST_DATABASE_URL) or the machine's local one.
 */
const PG_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describe('GET /ready when the database goes away and comes back', function () {
  this.timeout(60000);
  let proxy: FaultProxy;
  let t: TestServer;

  before(async () => {
    const target = new URL(PG_URL);
    proxy = await new FaultProxy(target.hostname, Number(target.port || 5432)).start();
    const viaProxy = new URL(PG_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    t = await startTestServer({ env: { DATABASE_URL: viaProxy.toString(), TOOLGATE_DB_SCHEMA: `tg_ready_${process.pid}` } });
  });

  after(async () => {
    proxy.restore();
    await t?.stop();
    await proxy?.stop();
  });

  it('answers 200 while the database answers', async () => {
    const res = await t.anon.get('/ready');
    expect(res.status).to.equal(200);
  });

  it('answers 503 with a reason and Retry-After when the database is unreachable, and /health stays 200', async () => {
    proxy.block();
    const res = await t.anon.get('/ready');
    expect(res.status).to.equal(503);
    expect(res.body.code).to.equal('not_ready');
    expect(res.body.detail).to.match(/database/);
    expect(res.body.detail).not.to.include(String(proxy.port));
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    const health = await t.anon.get('/health');
    expect(health.status).to.equal(200);
    expect(health.body).to.include({ status: 'degraded', database: 'unreachable' });
  });

  it('answers 200 again once the database is back', async () => {
    proxy.restore();
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i += 1) {
      status = (await t.anon.get('/ready')).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).to.equal(200);
  });
});

describe('start-up with an unreachable database', () => {
  it('gives up after TOOLGATE_DB_CONNECT_TIMEOUT_MS with a clear error', async () => {
    const started = Date.now();
    let error: unknown;
    try {
      await startTestServer({ env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test', TOOLGATE_DB_CONNECT_TIMEOUT_MS: '1000' } });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(Error);
    expect((error as Error & { code?: string }).code).to.equal('ECONNREFUSED');
    expect(Date.now() - started).to.be.lessThan(15000);
  });
});

describe('GET /ready when the database refuses writes for lack of disk space', function () {
  this.timeout(60000);
  let t: TestServer;

  before(async () => {
    t = await startTestServer();
  });
  after(() => t?.stop());

  it('answers 503 naming the cause while call records cannot be written, keeps them, and is ready again once written', async () => {
    const services = t.server.services;
    const store = services.stores.callRecords;
    const insertMany = store.insertMany.bind(store);
    store.insertMany = async () => {
      throw Object.assign(new Error('could not extend file "base/1/2": No space left on device'), { code: '53100' });
    };
    try {
      services.callRecorder.record({
        occurred_at: new Date(),
        endpoint: 'bundle',
        bundle_id: null,
        server_id: null,
        server_name: null,
        tool_id: null,
        tool_name: 'disk_full_probe',
        user_id: null,
        api_key_id: null,
        oauth_client_id: null,
        status: 'ok',
        latency_ms: 1,
        error: null,
      });
      await services.callRecorder.flush();
      const res = await t.anon.get('/ready');
      expect(res.status).to.equal(503);
      expect(res.body.code).to.equal('not_ready');
      expect(res.body.detail).to.include('out of disk space');
      const metrics = await t.owner.get('/metrics', { unchecked: true });
      expect(metrics.text).to.match(/^toolgate_call_records_writable 0$/m);
      expect(metrics.text).to.match(/^toolgate_call_records_pending 1$/m);
    } finally {
      store.insertMany = insertMany;
    }
    await services.callRecorder.flush();
    expect((await t.anon.get('/ready')).status).to.equal(200);
    const rows = await services.db.knex('call_records').where({ tool_name: 'disk_full_probe' });
    expect(rows).to.have.length(1);
  });
});
