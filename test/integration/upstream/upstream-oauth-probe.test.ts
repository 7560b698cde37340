import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpstreamOAuthClient } from '../../../src/upstream/upstream-oauth.js';

/**
 * A stateless (2026-07-28) MCP server that lets `initialize` through to its router, which refuses
 * it (400), and protects every request of its own protocol with a Bearer challenge.
 */
async function statelessServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const message = JSON.parse(body) as { method: string; params?: { _meta?: Record<string, unknown> } };
      const version = req.headers['mcp-protocol-version'];
      if (
        message.method === 'initialize' ||
        version !== '2026-07-28' ||
        message.params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== version
      ) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32020, message: 'Missing MCP-Protocol-Version header' } }));
        return;
      }
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': 'Bearer scope="mcp:basic", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"',
      });
      res.end('{"error":"invalid_token"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('UpstreamOAuthClient.probe', () => {
  it('finds the challenge of a stateless (2026-07-28) server that refuses initialize with 400', async () => {
    const s = await statelessServer();
    try {
      const client = new UpstreamOAuthClient((url, init) => fetch(url, init));
      expect(await client.probe(s.url)).to.deep.equal({
        scope: 'mcp:basic',
        resource_metadata: 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp',
      });
    } finally {
      await s.close();
    }
  });
});
