import { expect } from 'chai';
import { ManualClock } from '../../../../src/lib/clock.js';
import { ApiClient } from '../../../helpers/api-client.js';
import { FaultProxy } from '../../../helpers/fault-proxy.js';
import { createUser } from '../../../helpers/identity.js';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../../../helpers/test-server.js';

/** Authentication while PostgreSQL is unreachable (the suite's PostgreSQL or the local one, through a proxy the test cuts). */
const PG_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describe('API key authentication during a database outage', function () {
  this.timeout(60000);
  let proxy: FaultProxy;
  let t: TestServer;
  const clock = new ManualClock(new Date('2026-11-22T10:00:00Z'));

  before(async () => {
    const target = new URL(PG_URL);
    proxy = await new FaultProxy(target.hostname, Number(target.port || 5432)).start();
    const viaProxy = new URL(PG_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    t = await startTestServer({ clock, env: { DATABASE_URL: viaProxy.toString(), TOOLGATE_DB_SCHEMA: `tg_authdown_${process.pid}` } });
  });
  after(async () => {
    proxy?.restore();
    await t?.stop();
    await proxy?.stop();
  });

  it('keeps accepting a known key from memory, even past the cache TTL, and answers 503 (not 401) for keys it cannot check', async () => {
    const user = await createUser(t, 'member');
    expect((await user.client.get('/api/v1/servers')).status).to.equal(200);
    proxy.block();
    try {
      clock.advance(5 * 60_000);
      // Authentication passed from memory: the request was charged to the key's rate limit (its
      // RateLimit headers), and only the handler's own database read failed (503).
      const known = await user.client.get('/api/v1/servers');
      expect(known.status).to.equal(503);
      expect(known.headers.get('ratelimit-limit')).to.match(/^\d+$/);
      const unknown = await new ApiClient(t.url, `tg_usr_live_${'Z'.repeat(43)}`).get('/api/v1/servers');
      expect(unknown.status).to.equal(503);
      expect(unknown.headers.get('ratelimit-limit')).to.equal(null);
      expect(unknown.headers.get('retry-after')).to.match(/^\d+$/);
    } finally {
      proxy.restore();
    }
  });
});
