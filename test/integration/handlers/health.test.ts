import { expect } from 'chai';
import { sharedServer, type TestServer } from '../../helpers/test-server.js';

describe('GET /health and GET /ready', () => {
  let t: TestServer;
  before(async () => {
    t = await sharedServer();
  });

  it('GET /health answers 200 with an object of string values, no credential needed', async () => {
    const res = await t.anon.get('/health');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'ok', version: '0.1.0' });
    for (const value of Object.values(res.body)) expect(value).to.be.a('string');
    expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('GET /ready answers 200 when the database answers', async () => {
    const res = await t.anon.get('/ready');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ready', database: 'ok' });
  });

  it('echoes a well-formed X-Request-Id and replaces a malformed one', async () => {
    const ok = await t.anon.get('/health', { headers: { 'x-request-id': 'trace-123' } });
    expect(ok.headers.get('x-request-id')).to.equal('trace-123');
    const bad = await t.anon.get('/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(bad.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
