import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayResponse } from '../../../src/http/gateway-response.js';

/** Serves one request with `handle` on a server using GatewayResponse; resolves with what the client received. */
async function exchange(
  handle: (res: GatewayResponse) => void,
): Promise<{ status: number; message: string; headers: http.IncomingHttpHeaders; body: string }> {
  const server = http.createServer({ ServerResponse: GatewayResponse }, (_req, res) => {
    res.baseHeaders = ['X-Request-Id', 'rid-1', 'Cache-Control', 'no-store'];
    handle(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/' }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, message: res.statusMessage!, headers: res.headers, body }));
        })
        .on('error', reject);
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('GatewayResponse (base headers written with the status line)', () => {
  it('sends the base headers with the headers writeHead names (an object)', async () => {
    const r = await exchange((res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': 2, 'x-list': ['a', 'b'], skipped: undefined });
      res.end('{}');
    });
    expect(r.status).to.equal(201);
    expect(r.body).to.equal('{}');
    expect(r.headers).to.include({
      'x-request-id': 'rid-1',
      'cache-control': 'no-store',
      'content-type': 'application/json',
      'x-list': 'a, b',
    });
    expect(r.headers).to.not.have.property('skipped');
  });

  it('with a status message, with a header list, and with no headers at all', async () => {
    const withMessage = await exchange((res) => res.writeHead(404, 'Nope', ['content-type', 'text/plain']).end('x'));
    expect(withMessage.status).to.equal(404);
    expect(withMessage.message).to.equal('Nope');
    expect(withMessage.headers).to.include({ 'x-request-id': 'rid-1', 'content-type': 'text/plain' });
    const bare = await exchange((res) => res.writeHead(204).end());
    expect(bare.status).to.equal(204);
    expect(bare.headers).to.include({ 'x-request-id': 'rid-1', 'cache-control': 'no-store' });
  });

  it('merges headers set with setHeader, and sends the base headers with an implicit head (end without writeHead)', async () => {
    const merged = await exchange((res) => {
      res.setHeader('x-set', 'early');
      res.writeHead(200, { 'content-type': 'application/json' }).end('1');
    });
    expect(merged.headers).to.include({ 'x-request-id': 'rid-1', 'x-set': 'early', 'content-type': 'application/json' });
    const implicit = await exchange((res) => {
      res.statusCode = 202;
      res.end('ok');
    });
    expect(implicit.status).to.equal(202);
    expect(implicit.headers).to.include({ 'x-request-id': 'rid-1', 'cache-control': 'no-store' });
  });
});
