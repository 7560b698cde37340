import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { register, waitConnected } from '../../helpers/upstreams.js';

const RETRY_MS = 400;

/**
 * A Streamable HTTP upstream that answers `tools/call` on an SSE stream it closes after the
 * priming event (id `call-1`, `retry: 400`), before the answer, as a server that polls does
 * (MCP 2025-11-25, SEP-1699). The answer comes only on a GET that resumes from `call-1`.
 */
async function startPollingUpstream(): Promise<{
  url: string;
  resumes: { lastEventId: string | undefined; afterMs: number }[];
  close: () => Promise<void>;
}> {
  const resumes: { lastEventId: string | undefined; afterMs: number }[] = [];
  let pending: { id: unknown; closedAt: number } | undefined;
  const json = (res: http.ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      const lastEventId = req.headers['last-event-id'] as string | undefined;
      if (!lastEventId || !pending) {
        res.writeHead(405).end();
        return;
      }
      resumes.push({ lastEventId, afterMs: performance.now() - pending.closedAt });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const answer = { jsonrpc: '2.0', id: pending.id, result: { content: [{ type: 'text', text: 'resumed answer' }] } };
      pending = undefined;
      res.write(`id: call-2\ndata: ${JSON.stringify(answer)}\n\n`);
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id?: unknown; method?: string };
      if (msg.id === undefined) {
        res.writeHead(202).end();
      } else if (msg.method === 'initialize') {
        json(res, {
          jsonrpc: '2.0',
          id: msg.id,
          result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'polling', version: '1' } },
        });
      } else if (msg.method === 'tools/list') {
        json(res, {
          jsonrpc: '2.0',
          id: msg.id,
          result: { tools: [{ name: 'slow_answer', inputSchema: { type: 'object', properties: {} } }] },
        });
      } else if (msg.method === 'tools/call') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' });
        res.write(`id: call-1\nretry: ${RETRY_MS}\ndata: \n\n`);
        setTimeout(() => {
          pending = { id: msg.id, closedAt: performance.now() };
          res.end();
        }, 30);
      } else {
        json(res, { jsonrpc: '2.0', id: msg.id, result: {} });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    resumes,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('Streamable HTTP upstream: an answer stream closed before the answer is resumed (SEP-1699)', () => {
  let t: TestServer;
  let upstream: Awaited<ReturnType<typeof startPollingUpstream>>;
  let endpoint: string;
  before(async () => {
    upstream = await startPollingUpstream();
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    const server = await register(t.owner, { name: 'polling', transport: 'streamable_http', url: upstream.url });
    await waitConnected(t.owner, server.id as string);
    const tools = await t.owner.get(`/api/v1/servers/${server.id as string}/tools`);
    const bundle = await t.owner.post('/api/v1/bundles', {
      name: 'polling-bundle',
      tools: (tools.body.items as { id: string }[]).map((tool) => ({ tool_id: tool.id })),
    });
    expect(bundle.status).to.equal(201);
    endpoint = `${t.url}/mcp/bundle/${bundle.body.bundle_key as string}`;
  });
  after(async () => {
    await t?.stop();
    await upstream?.close();
  });

  it("resumes with a GET carrying Last-Event-ID after the server's retry delay, and the caller gets the answer", async () => {
    const client = new Client({ name: 'resume-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    try {
      const result = (await client.callTool({ name: 'slow_answer', arguments: {} })) as { content: { text?: string }[] };
      expect(result.content[0]?.text).to.equal('resumed answer');
    } finally {
      await client.close();
    }
    expect(upstream.resumes).to.have.length(1);
    expect(upstream.resumes[0]!.lastEventId).to.equal('call-1');
    // The server's `retry` (400 ms) is honoured, not the transport's own reconnect delay or none.
    expect(upstream.resumes[0]!.afterMs).to.be.at.least(RETRY_MS - 50);
  });
});
