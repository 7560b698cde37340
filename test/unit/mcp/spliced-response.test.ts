import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { sendJson } from '../../../src/mcp/transport/responses.js';
import { RawResult, serializeAnswer, serializeResponse, SplicedResponse } from '../../../src/mcp/protocol.js';

describe('pre-serialised results (tools/list pages)', () => {
  const page = new RawResult(
    JSON.stringify({ tools: [{ name: 'größe_ändern', description: 'Ändert die Größe — 🚀', inputSchema: { type: 'object' } }] }),
  );

  it('splices the cached page into the response, the same JSON as serialising the whole', () => {
    const answer = serializeAnswer({ id: 'a"1', result: page });
    expect(answer).to.be.instanceOf(SplicedResponse);
    const expected = { jsonrpc: '2.0', id: 'a"1', result: JSON.parse(page.json) };
    expect(JSON.parse(String(answer))).to.deep.equal(expected);
    expect(JSON.parse(serializeResponse({ id: 'a"1', result: page }))).to.deep.equal(expected);
    expect(serializeAnswer({ id: 2, result: { x: 1 } })).to.equal('{"id":2,"result":{"x":1}}');
  });

  it('encodes the page once and reuses the same bytes', () => {
    expect(page.bytes).to.equal(page.bytes);
    expect(page.bytes.toString('utf8')).to.equal(page.json);
  });

  it('writes head, page bytes and the closing brace with an exact Content-Length (multi-byte text)', async () => {
    const server = http.createServer((_req, res) => sendJson(res, 200, serializeAnswer({ id: 7, result: page }), { 'x-test': '1' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-type')).to.equal('application/json');
      expect(res.headers.get('x-test')).to.equal('1');
      expect(Number(res.headers.get('content-length'))).to.equal(body.length);
      expect(JSON.parse(body.toString('utf8'))).to.deep.equal({ jsonrpc: '2.0', id: 7, result: JSON.parse(page.json) });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
