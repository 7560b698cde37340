import { expect } from 'chai';
import { createUser } from '../../helpers/identity.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

describe('rate limits per API key (in memory)', function () {
  this.timeout(60000);
  let t: TestServer;

  before(async () => {
    t = await startTestServer({ env: { TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '5' } });
  });
  after(async () => {
    await t?.stop();
  });

  it('answers the (rpm+1)th request in a minute with 429, Retry-After and RateLimit headers', async () => {
    const user = await createUser(t, 'member', { rateLimitRpm: 3 });
    for (let i = 0; i < 3; i++) {
      const ok = await user.client.get('/api/v1/users/me');
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('ratelimit-limit')).to.equal('3');
      expect(ok.headers.get('ratelimit-remaining')).to.equal(String(2 - i));
      expect(Number(ok.headers.get('ratelimit-reset'))).to.be.within(0, 60);
    }
    const res = await user.client.get('/api/v1/users/me');
    expect(res.status).to.equal(429);
    expect(res.body).to.include({ code: 'rate_limited' });
    expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
    expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60);
    expect(res.headers.get('ratelimit-limit')).to.equal('3');
    expect(res.headers.get('ratelimit-remaining')).to.equal('0');
  });

  it('uses the default rpm for keys without their own limit, and counts each key separately', async () => {
    const a = await createUser(t, 'member');
    const b = await createUser(t, 'member');
    for (let i = 0; i < 5; i++) expect((await a.client.get('/api/v1/users/me')).status).to.equal(200);
    expect((await a.client.get('/api/v1/users/me')).status).to.equal(429);
    expect((await b.client.get('/api/v1/users/me')).status).to.equal(200);
  });

  it('charges before validation: a spent key gets 429 even for an invalid request', async () => {
    const user = await createUser(t, 'member', { rateLimitRpm: 1 });
    expect((await user.client.get('/api/v1/users/me')).status).to.equal(200);
    expect((await user.client.get('/api/v1/users/me/api-keys?page_size=1000')).status).to.equal(429);
  });

  it('does not charge unauthenticated requests to anyone’s key', async () => {
    const user = await createUser(t, 'member', { rateLimitRpm: 2 });
    for (let i = 0; i < 5; i++) expect((await t.anon.get('/api/v1/users/me')).status).to.equal(401);
    expect((await user.client.get('/api/v1/users/me')).status).to.equal(200);
  });

  it('limits public login and invitation lookups per client address (120 a minute)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push((await t.anon.get('/api/v1/auth/providers')).status);
    expect(statuses.slice(0, 120).every((s) => s === 200)).to.equal(true);
    expect(statuses[120]).to.equal(429);
    const res = await t.anon.get('/api/v1/invitations/accept/tginv_whatever');
    expect(res.status).to.equal(429);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    // Health probes are never limited.
    expect((await t.anon.get('/health')).status).to.equal(200);
  });
});
