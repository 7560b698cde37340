import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LeanHttpClientTransport } from '../../../src/upstream/lean-http-transport.js';
import { UpstreamConnection, type UpstreamState } from '../../../src/upstream/upstream-connection.js';
import { createLogger } from '../../../src/logger.js';

interface Seen {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * A scripted Streamable HTTP server: answers initialize with a session id, tools/call by the tool's
 * name (JSON, SSE split in odd places, hang), and forgets sessions on demand (404).
 */
class ScriptedServer {
  server: http.Server;
  url = '';
  seen: Seen[] = [];
  sessions = new Set<string>();
  private counter = 0;
  streams: http.ServerResponse[] = [];

  constructor() {
    this.server = http.createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (raw += c));
      req.on('end', () => this.handle(req, res, raw));
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }

  forgetSessions(): void {
    this.sessions.clear();
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
    const body = raw ? JSON.parse(raw) : undefined;
    this.seen.push({ method: req.method ?? '', headers: req.headers, body });
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'DELETE') {
      this.sessions.delete(String(sid));
      res.writeHead(200).end();
      return;
    }
    if (body?.method !== 'initialize' && (typeof sid !== 'string' || !this.sessions.has(sid))) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      return;
    }
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      this.streams.push(res);
      return;
    }
    if (body.method === 'initialize') {
      const id = `s-${++this.counter}`;
      this.sessions.add(id);
      const result = {
        protocolVersion: body.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'scripted', version: '1' },
      };
      res
        .writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': id })
        .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
      return;
    }
    if (body.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (body.method === 'ping') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: {} }));
      return;
    }
    const name = body.params?.name;
    const text = String(body.params?.arguments?.text ?? '');
    const answer = JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: `${name}:${text}` }] } });
    if (name === 'hang') return;
    if (name === 'sse') {
      // A progress notification and the answer, cut into chunks mid-field, mid-JSON and mid-UTF-8.
      const progress = JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: body.params?._meta?.progressToken ?? 'none', progress: 1, total: 2 },
      });
      const wire = Buffer.from(`id: 1\ndata: \n\nevent: message\ndata: ${progress}\n\nid: 2\ndata: ${answer}\n\n`);
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      const mid = wire.indexOf(Buffer.from('é')) + 1; // between the two bytes of a character
      const cuts = [...new Set([3, 9, 17, 40, mid, wire.length - 30, wire.length - 1])].sort((a, b) => a - b);
      let at = 0;
      const next = (i: number): void => {
        if (i > cuts.length) {
          res.end();
          return;
        }
        const end = i < cuts.length ? (cuts[i] as number) : wire.length;
        res.write(wire.subarray(at, end));
        at = end;
        setImmediate(() => next(i + 1));
      };
      next(0);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  }
}

describe('LeanHttpClientTransport (Streamable HTTP upstreams on node:http)', () => {
  let upstream: ScriptedServer;
  beforeEach(async () => {
    upstream = new ScriptedServer();
    await upstream.listen();
  });
  afterEach(() => upstream.close());

  async function connected(): Promise<{ client: Client; transport: LeanHttpClientTransport }> {
    const transport = new LeanHttpClientTransport(new URL(upstream.url), { headers: { authorization: 'Bearer t0ken' } });
    const client = new Client({ name: 'test', version: '1' }, { capabilities: {} });
    await client.connect(transport);
    return { client, transport };
  }

  it('initialises a session and sends its id, the protocol version and configured headers on every request', async () => {
    const { client, transport } = await connected();
    expect(transport.sessionId).to.equal('s-1');
    const r = await client.callTool({ name: 'json', arguments: { text: 'héllo' } });
    expect(r.content).to.deep.equal([{ type: 'text', text: 'json:héllo' }]);
    const call = upstream.seen.find((s) => s.body?.method === 'tools/call');
    expect(call?.headers['mcp-session-id']).to.equal('s-1');
    expect(call?.headers['mcp-protocol-version']).to.be.a('string').and.not.equal('');
    expect(call?.headers.authorization).to.equal('Bearer t0ken');
    expect(call?.headers.accept).to.equal('application/json, text/event-stream');
    // The initialized notification got 202 and opened the GET stream for server messages.
    await waitUntil(() => upstream.streams.length === 1);
    expect(upstream.seen.find((s) => s.method === 'GET')?.headers.accept).to.equal('text/event-stream');
    await client.close();
  });

  it('parses an SSE answer split across chunks (mid-line, mid-JSON, mid-character), with its notifications', async () => {
    const { client } = await connected();
    const progress: number[] = [];
    const r = await client.callTool({ name: 'sse', arguments: { text: 'é'.repeat(10) } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(r.content).to.deep.equal([{ type: 'text', text: `sse:${'é'.repeat(10)}` }]);
    expect(progress).to.deep.equal([1]);
    await client.close();
  });

  it('reports an expired session as StreamableHTTPError 404 (what the connection re-initialises on)', async () => {
    const { client, transport } = await connected();
    const errors: Error[] = [];
    transport.onerror = (e) => errors.push(e);
    upstream.forgetSessions();
    const err = await client.callTool({ name: 'json', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).to.equal(404);
    expect(errors.some((e) => e instanceof StreamableHTTPError && e.code === 404)).to.equal(true);
    await client.close();
  });

  it('close() aborts requests in flight, ends the GET stream and DELETEs the session', async () => {
    const { client } = await connected();
    await waitUntil(() => upstream.streams.length === 1);
    const pending = client.callTool({ name: 'hang', arguments: {} }).then(
      () => 'answered',
      (e: Error) => e.message,
    );
    await waitUntil(() => upstream.seen.some((s) => s.body?.params?.name === 'hang'));
    await client.close();
    expect(await pending).to.match(/closed/i);
    const del = upstream.seen.find((s) => s.method === 'DELETE');
    expect(del?.headers['mcp-session-id']).to.equal('s-1');
    expect(upstream.sessions.size).to.equal(0);
  });

  it('a bare transport without a session: a request answered 404 rejects and delivers no message', async () => {
    const transport = new LeanHttpClientTransport(new URL(upstream.url));
    const seen: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    transport.onmessage = (m) => seen.push(m);
    transport.onerror = (e) => errors.push(e);
    await transport.start();
    // No session yet: a tools/call is answered 404 by the scripted server.
    const err = await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'json' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as StreamableHTTPError).code).to.equal(404);
    expect(seen).to.have.length(0);
    await transport.close();
  });

  it('sends a request again on a fresh socket when the server closed the kept-alive one as it was reused', async () => {
    // Every connection answers its first request (keep-alive) and is then dropped on the next one.
    const dropper = net.createServer((socket) => {
      let requests = 0;
      socket.on('data', () => {
        requests += 1;
        if (requests > 1) {
          socket.destroy();
          return;
        }
        const body = '{"jsonrpc":"2.0","id":1,"result":{}}';
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n${body}`,
        );
      });
    });
    await new Promise<void>((r) => dropper.listen(0, '127.0.0.1', r));
    const transport = new LeanHttpClientTransport(new URL(`http://127.0.0.1:${(dropper.address() as AddressInfo).port}/mcp`));
    const seen: JSONRPCMessage[] = [];
    transport.onmessage = (m) => seen.push(m);
    try {
      await transport.start();
      await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      expect(seen).to.have.length(2);
    } finally {
      await transport.close();
      dropper.close();
    }
  });

  it('through UpstreamConnection: a 404 on a call re-initialises the session and the call succeeds', async () => {
    const logger = createLogger({ logLevel: 'silent' });
    const states: UpstreamState[] = [];
    const connection = new UpstreamConnection(
      {
        id: 'srv',
        name: 'scripted',
        connection: { transport: 'streamable_http', url: upstream.url, headers: {} },
        callTimeoutMs: 5000,
        healthCheckIntervalMs: 60_000,
      },
      { logger, clientInfo: { name: 'tg', version: '1' }, connectTimeoutMs: 5000, retryBaseMs: 50, retryMaxMs: 100, maxFastRetries: 3 },
      { onConnected: () => undefined, onStateChange: (_id, s) => states.push(s), onListChanged: () => undefined },
    );
    connection.start();
    try {
      const call = (text: string) =>
        connection.run('tools/call', {}, (client, request) => client.callTool({ name: 'json', arguments: { text } }, undefined, request));
      expect((await call('one')).content).to.deep.equal([{ type: 'text', text: 'json:one' }]);
      upstream.forgetSessions();
      expect((await call('two')).content).to.deep.equal([{ type: 'text', text: 'json:two' }]);
      const inits = upstream.seen.filter((s) => s.body?.method === 'initialize');
      expect(inits).to.have.length(2);
      expect(states.at(-1)?.status).to.equal('connected');
    } finally {
      await connection.close();
    }
  });
});

async function waitUntil(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
