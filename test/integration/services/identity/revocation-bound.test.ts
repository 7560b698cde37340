import { expect } from 'chai';
import { CREDENTIAL_CACHE_TTL_MS } from '../../../../src/services/identity/api-key-authenticator.js';
import { ManualClock } from '../../../../src/lib/clock.js';
import { ApiClient } from '../../../helpers/api-client.js';
import { createUser } from '../../../helpers/identity.js';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../../../helpers/test-server.js';

/**
 * The documented bound on a revocation that no change message carries: two instances on one
 * PostgreSQL schema and no Redis at all (as when Redis is down), so the instance that did not
 * revoke learns of it only from its credential cache expiring.
 */
const PG_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

describe('revocation reaches an instance that missed the change message within the cache bound', function () {
  this.timeout(60000);
  let a: TestServer;
  let b: TestServer;
  const clock = new ManualClock();

  before(async () => {
    const env = { DATABASE_URL: PG_URL, TOOLGATE_DB_SCHEMA: `tg_revoke_${process.pid}_${Date.now() % 100000}` };
    a = await startTestServer({ env, clock });
    b = await startTestServer({ env, clock, noBootstrap: true, keepData: true });
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('states a bound of 5 s or less', () => {
    expect(CREDENTIAL_CACHE_TTL_MS).to.be.at.most(5_000);
  });

  it('a key revoked on one instance is refused on the other once the bound has passed, not before', async () => {
    const user = await createUser(a, 'member');
    const onB = new ApiClient(b.url, user.key);
    expect((await onB.get('/api/v1/users/me')).status).to.equal(200);
    expect((await user.client.delete(`/api/v1/users/me/api-keys/${user.keyId}`)).status).to.equal(204);
    // No message reached B: within the bound it still trusts its cached entry.
    clock.advance(1_000);
    expect((await onB.get('/api/v1/users/me', { unchecked: true })).status).to.equal(200);
    clock.advance(CREDENTIAL_CACHE_TTL_MS);
    const res = await onB.get('/api/v1/users/me', { unchecked: true });
    expect(res.status).to.equal(401);
    expect(res.body.code).to.equal('invalid_api_key');
  });

  it('a key in steady use is re-read in the background: its revocation is seen without any request waiting', async () => {
    const user = await createUser(a, 'member');
    const onB = new ApiClient(b.url, user.key);
    expect((await onB.get('/api/v1/users/me')).status).to.equal(200);
    expect((await user.client.delete(`/api/v1/users/me/api-keys/${user.keyId}`)).status).to.equal(204);
    // Past the refresh-ahead age but within the TTL: served from the cache, and re-read behind it.
    clock.advance(CREDENTIAL_CACHE_TTL_MS - 500);
    expect((await onB.get('/api/v1/users/me', { unchecked: true })).status).to.equal(200);
    let status = 200;
    for (let i = 0; i < 50 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await onB.get('/api/v1/users/me', { unchecked: true })).status;
    }
    expect(status).to.equal(401);
  });
});
