import { expect } from 'chai';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { fixtureStdio, register, startFixtureHttp, waitConnected, waitFor, type ChildServer } from '../../../helpers/upstreams.js';

/** Addresses an admin may not point an upstream at unless allow-listed (SSRF). */
const REFUSED = [
  'http://127.0.0.1:9/mcp',
  'http://localhost/mcp',
  'http://localhost./mcp',
  'http://LOCALHOST.:8080/mcp',
  'http://tools.localhost/mcp',
  'http://[::1]:9/mcp',
  'http://[::ffff:127.0.0.1]/mcp',
  'http://169.254.169.254/latest/meta-data',
  'http://10.1.2.3/mcp',
  'http://192.168.0.10/sse',
  'http://0x7f.1/mcp',
];

describe('upstream server URLs under the outbound-address policy', function () {
  this.timeout(90000);

  describe('at save (no allow-list, as in production)', () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer();
    });
    after(async () => {
      await t?.stop();
    });

    const total = async () => (await t.owner.get('/api/v1/servers?page_size=100')).body.total as number;

    for (const url of REFUSED) {
      it(`POST answers 422 naming body.url for ${url}, and stores nothing`, async () => {
        const before = await total();
        const res = await t.owner.post('/api/v1/servers', { name: `refused-${before}`, transport: 'streamable_http', url });
        expect(res.status).to.equal(422);
        const issue = res.body.detail.find((d: { loc: unknown[] }) => d.loc.join('.') === 'body.url');
        expect(issue, JSON.stringify(res.body)).to.include({ type: 'url_refused' });
        expect(issue.msg)
          .to.match(/not allowed/)
          .and.match(/TOOLGATE_OUTBOUND_ALLOWLIST/);
        expect(await total()).to.equal(before);
      });
    }

    it('PATCH answers 422 naming body.url when the new URL is refused, and keeps the old one', async () => {
      const created = await t.owner.post('/api/v1/servers', {
        name: 'public-http',
        transport: 'sse',
        url: 'https://mcp.example.com/sse',
        enabled: false,
      });
      expect(created.status).to.equal(201);
      const res = await t.owner.patch(`/api/v1/servers/${created.body.id}`, { url: 'http://localhost./sse' });
      expect(res.status).to.equal(422);
      expect(res.body.detail[0]).to.deep.include({ loc: ['body', 'url'], type: 'url_refused' });
      expect((await t.owner.get(`/api/v1/servers/${created.body.id}`)).body.url).to.equal('https://mcp.example.com/sse');
      const toStdio = await t.owner.patch(`/api/v1/servers/${created.body.id}`, { transport: 'stdio', ...fixtureStdio() });
      expect(toStdio.status).to.equal(200);
    });
  });

  describe('at connect (allow-list changed after the save)', () => {
    let t: TestServer;
    let upstream: ChildServer;
    before(async () => {
      upstream = await startFixtureHttp('http');
      t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_UPSTREAM_RETRY_BASE_MS: '100' } });
    });
    after(async () => {
      await t?.stop();
      await upstream?.stop();
    });

    it('ends in status error with the policy as last_error, and connects again once allowed', async () => {
      const server = await register(t.owner, { name: 'loopback-http', transport: 'streamable_http', url: upstream.url });
      await waitConnected(t.owner, server.id);
      const policy = t.server.services.outboundPolicy;
      policy.setAllowlist([]);
      try {
        expect((await t.owner.post(`/api/v1/servers/${server.id}/disable`)).status).to.equal(200);
        expect((await t.owner.post(`/api/v1/servers/${server.id}/enable`)).status).to.equal(200);
        const down = await waitFor('status error', async () => {
          const r = await t.owner.get(`/api/v1/servers/${server.id}`);
          return r.body.status === 'error' ? r.body : false;
        });
        expect(down.last_error).to.match(
          /^address refused by the outbound policy: host 127\.0\.0\.1 \(port \d+\) resolves to a private, loopback/,
        );
        expect(t.server.services.pool.state(server.id)?.status).to.equal('error');
      } finally {
        policy.setAllowlist(LOOPBACK_UPSTREAMS.TOOLGATE_OUTBOUND_ALLOWLIST.split(','));
      }
      const refreshed = await t.owner.post(`/api/v1/servers/${server.id}/refresh`);
      expect(refreshed.status).to.equal(200);
      const back = await waitConnected(t.owner, server.id);
      expect(back.last_error).to.equal(null);
    });
  });
});
