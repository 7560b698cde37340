import { expect } from 'chai';
import http from 'node:http';
import { sharedServer, type TestServer } from '../../helpers/test-server.js';

/** POST with a Host header of our choosing (fetch does not let a caller set Host). */
function postWithHost(t: TestServer, path: string, host: string, body: unknown): Promise<{ status: number; body: any }> {
  const url = new URL(t.url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: {
          host,
          authorization: `Bearer ${t.ownerKey}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('addresses in responses (bundle mcp_endpoint) never reflect an arbitrary Host', function () {
  this.timeout(60000);
  let t: TestServer;
  before(async () => {
    t = await sharedServer();
  });

  it('keeps a loopback Host naming the bound port', async () => {
    const port = new URL(t.url).port;
    const res = await postWithHost(t, '/api/v1/bundles', `localhost:${port}`, { name: 'host-localhost' });
    expect(res.status).to.equal(201);
    expect(res.body.mcp_endpoint).to.equal(`http://localhost:${port}/mcp/bundle/${encodeURIComponent(res.body.bundle_key)}`);
  });

  for (const host of ['evil.example', 'evil.example:1234', '127.0.0.1:1', 'localhost@evil.example']) {
    it(`answers with the bound address for Host: ${host}`, async () => {
      const res = await postWithHost(t, '/api/v1/bundles', host, { name: `host-${host.replace(/[^a-z0-9]/gi, '-')}` });
      expect(res.status).to.equal(201);
      expect(res.body.mcp_endpoint.startsWith(`${t.url}/mcp/bundle/`), res.body.mcp_endpoint).to.equal(true);
    });
  }
});
