import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createUser, type TestUser } from '../../helpers/identity.js';
import { REDIRECT_URI, authorizeAndApprove, pkcePair, registerClient, tokenRequest } from '../../helpers/oauth-client.js';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../../helpers/test-server.js';

const PG_URL = TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Both instances sit behind one public address: the issuer and the resource tokens are bound to. */
const PUBLIC = 'http://toolgate.test';

async function status(url: string, token: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'lb', version: '1' } },
    }),
  });
  await res.body?.cancel();
  return res.status;
}

/**
 * Two instances on one PostgreSQL and one Redis: a token issued through A works on B, and a
 * revocation or a deactivation made through A applies to B's very next request (B had the token
 * cached), through the change bus.
 */
describe('scale-out: OAuth revocation and deactivation reach every instance at once', function () {
  this.timeout(120_000);
  let a: TestServer;
  let b: TestServer;
  let user: TestUser;

  before(async () => {
    const env = {
      DATABASE_URL: PG_URL,
      TOOLGATE_DB_SCHEMA: `tg_oauth_scale_${process.pid}_${Date.now() % 100000}`,
      REDIS_URL,
      TOOLGATE_SECRET_KEY: randomBytes(32).toString('hex'),
      TOOLGATE_PUBLIC_URL: PUBLIC,
    };
    a = await startTestServer({ env });
    b = await startTestServer({ env, noBootstrap: true, keepData: true });
    for (const s of [a, b]) await (s.server.services.bus as unknown as { ready?: () => Promise<void> }).ready?.();
    user = await createUser(a, 'member');
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  async function connect(): Promise<string> {
    const { body } = await registerClient(a.url);
    const pkce = pkcePair();
    const back = await authorizeAndApprove(a.url, user.client, {
      response_type: 'code',
      client_id: body.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      resource: `${PUBLIC}/mcp/gateway`,
    });
    expect(back.searchParams.get('iss')).to.equal(PUBLIC);
    const tokens = await tokenRequest(a.url, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      code_verifier: pkce.verifier,
      client_id: body.client_id,
      redirect_uri: REDIRECT_URI,
    });
    expect(tokens.status).to.equal(200);
    return tokens.body.access_token as string;
  }

  it('revokes a connected app through A and B refuses the token on its next request', async () => {
    const access = await connect();
    expect(await status(`${b.url}/mcp/gateway`, access)).to.equal(200);
    const grants = await user.client.get('/api/v1/users/me/oauth-grants');
    expect((await user.client.delete(`/api/v1/users/me/oauth-grants/${grants.body.items[0].id}`)).status).to.equal(204);
    expect(await status(`${b.url}/mcp/gateway`, access)).to.equal(401);
  });

  it('deactivates the person through A and B refuses their token on its next request', async () => {
    const access = await connect();
    expect(await status(`${b.url}/mcp/gateway`, access)).to.equal(200);
    expect((await a.owner.patch(`/api/v1/users/${user.id}`, { is_active: false })).status).to.equal(200);
    expect(await status(`${b.url}/mcp/gateway`, access)).to.equal(401);
  });
});
