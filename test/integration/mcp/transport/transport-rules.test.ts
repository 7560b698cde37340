import http from 'node:http';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallResult, UpstreamCallOptions } from '../../../../src/domain/upstream-call.js';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { mcpFetch, parseSse, RawSession, responseOf } from '../../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../../helpers/test-upstreams.js';

/** The fixture upstream plus `tick_hang`: one progress notification, then nothing until cancelled. */
class TickingUpstreams extends TestUpstreams {
  override callTool(serverId: string, toolName: string, args: Record<string, unknown>, options: UpstreamCallOptions = {}) {
    if (toolName !== 'tick_hang') return super.callTool(serverId, toolName, args, options);
    this.calls.push({ serverId, tool: toolName, args, aborted: false });
    const seen = this.calls.at(-1)!;
    return new Promise<ToolCallResult>((_, reject) => {
      options.signal?.addEventListener('abort', () => {
        seen.aborted = true;
        reject(new Error('aborted'));
      });
      setTimeout(() => options.onProgress?.({ progress: 1 }), 5);
    });
  }
}

/** One raw HTTP exchange with full control over headers (fetch always adds an Accept). */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** An open GET stream read as it arrives. */
async function openStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const reader = res.body!.getReader();
  let text = '';
  return {
    res,
    /** Reads until the text seen so far holds `count` occurrences of `needle`; returns it all. */
    async until(needle: string, count = 1): Promise<string> {
      while (text.split(needle).length - 1 < count) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
      return text;
    },
    close: () => controller.abort(),
  };
}

/** The `id:` lines of an SSE text, in order. */
const eventIds = (text: string): string[] => [...text.matchAll(/^id: (.*)\nevent: message$/gm)].map((m) => m[1]!);

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('MCP transport rules (implicit sessions, cancellation, Accept, replay)', () => {
  let t: TestServer;
  let upstreams: TickingUpstreams;
  let tools: ReturnType<typeof putFixtureServer>['tools'];
  let serverId: string;
  let url: string;
  let admin: TestUser;

  before(async () => {
    upstreams = new TickingUpstreams();
    // A slow-answer threshold far beyond any test: a call still owes plain JSON until it streams progress.
    t = await startTestServer({ start: { upstreams, mcp: { callTimeoutMs: 30_000, slowResponseMs: 60_000 } } });
    ({ tools, serverId } = putFixtureServer(t.server.services.catalog, 'fix', [{ name: 'echo' }, { name: 'slow' }, { name: 'tick_hang' }]));
    const bundle = (
      await t.owner.post('/api/v1/bundles', {
        name: 'Rules',
        tools: Object.values(tools).map((x) => ({ tool_id: x.id })),
      })
    ).body;
    url = `${t.url}/mcp/bundle/${bundle.bundle_key}`;
    admin = await createUser(t, 'admin');
    await admin.client.put('/api/v1/users/me/gateway-settings', { bundle_ids: [bundle.id] });
  });
  after(() => t.stop());

  describe('spec 4.11 rule 3: a request without Mcp-Session-Id gets a new implicit session', () => {
    it('serves tools/list without a session and returns the new session id, which later requests use', async () => {
      const reply = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      expect(reply.status).to.equal(200);
      expect(responseOf(reply).result.tools.map((x: { name: string }) => x.name)).to.include('echo');
      const id = reply.headers.get('mcp-session-id');
      expect(id).to.match(/^[\x21-\x7E]{32,}$/);
      const again = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 2, method: 'ping' }, headers: { 'mcp-session-id': id! } });
      expect(again.status).to.equal(200);
      expect(again.headers.get('mcp-session-id')).to.equal(id);
      // Every request without the header is a new session.
      const other = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 3, method: 'ping' } });
      expect(other.headers.get('mcp-session-id')).to.be.a('string').and.not.equal(id);
    });

    it('takes the version from MCP-Protocol-Version, else 2025-03-26 (batches allowed only then)', async () => {
      const batch = [
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
        { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { n: 1 } } },
      ];
      const old = await mcpFetch(url, { body: batch });
      expect(old.status).to.equal(200);
      expect(old.json.map((r: { id: string }) => r.id)).to.deep.equal(['a', 'b']);
      const sessionId = old.headers.get('mcp-session-id')!;
      expect(t.server.mcp.core.sessions.get(sessionId)!.protocolVersion).to.equal('2025-03-26');
      const newer = await mcpFetch(url, { body: batch, headers: { 'mcp-protocol-version': '2025-11-25' } });
      expect(newer.status).to.equal(400);
      expect(newer.json.error.code).to.equal(-32600);
      const named = await mcpFetch(url, {
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
        headers: { 'mcp-protocol-version': '2025-06-18' },
      });
      expect(t.server.mcp.core.sessions.get(named.headers.get('mcp-session-id')!)!.protocolVersion).to.equal('2025-06-18');
      const unsupported = await mcpFetch(url, {
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
        headers: { 'mcp-protocol-version': '1999-01-01' },
      });
      expect(unsupported.status).to.equal(400);
      expect(unsupported.json.error.code).to.equal(-32022);
    });

    it('opens no session for notifications alone (202), and still needs the id on GET and DELETE (400)', async () => {
      const before = t.server.mcp.core.sessions.size;
      const note = await mcpFetch(url, { body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
      expect(note.status).to.equal(202);
      expect(note.headers.get('mcp-session-id')).to.equal(null);
      expect(t.server.mcp.core.sessions.size).to.equal(before);
      expect((await mcpFetch(url, { method: 'GET', headers: { accept: 'text/event-stream' } })).status).to.equal(400);
      expect((await mcpFetch(url, { method: 'DELETE' })).status).to.equal(400);
    });

    it('serves the gateway the same way, bound to the key', async () => {
      const auth = { authorization: `Bearer ${admin.key}` };
      const reply = await mcpFetch(`${t.url}/mcp/gateway`, { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: auth });
      expect(reply.status).to.equal(200);
      expect(responseOf(reply).result.tools.map((x: { name: string }) => x.name)).to.include('echo');
      const id = reply.headers.get('mcp-session-id')!;
      const reused = await mcpFetch(`${t.url}/mcp/gateway`, {
        body: { jsonrpc: '2.0', id: 2, method: 'ping' },
        headers: { ...auth, 'mcp-session-id': id },
      });
      expect(reused.status).to.equal(200);
      const otherKey = await mcpFetch(`${t.url}/mcp/gateway`, {
        body: { jsonrpc: '2.0', id: 3, method: 'ping' },
        headers: { authorization: `Bearer ${t.ownerKey}`, 'mcp-session-id': id },
      });
      expect(otherKey.status).to.equal(404);
    });
  });

  describe('a cancelled request gets no response', () => {
    const waitForCall = async (tool: string, before: number) => {
      while (!upstreams.calls.slice(before).some((c) => c.tool === tool)) await new Promise((r) => setTimeout(r, 5));
      return upstreams.calls.slice(before).find((c) => c.tool === tool)!;
    };

    it('ends a still-JSON answer as an SSE stream without a response event; the session serves on', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      const before = upstreams.calls.length;
      const pending = s.request('tools/call', { name: 'slow', arguments: { ms: 20_000 } }, { id: 5150 });
      const seen = await waitForCall('slow', before);
      expect((await s.notify('notifications/cancelled', { requestId: 5150, reason: 'user' })).status).to.equal(202);
      const reply = await pending;
      expect(seen.aborted).to.equal(true);
      expect(reply.status).to.equal(200);
      expect(reply.contentType).to.include('text/event-stream');
      expect(reply.events).to.deep.equal([]);
      expect((await s.request('ping')).status).to.equal(200);
    });

    it('ends a streaming answer after its notifications, without a response event', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      const before = upstreams.calls.length;
      const res = await fetch(url, {
        method: 'POST',
        headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', ...s.headers() },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'c-1',
          method: 'tools/call',
          params: { name: 'tick_hang', _meta: { progressToken: 'p' } },
        }),
      });
      expect(res.headers.get('content-type')).to.include('text/event-stream');
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes('notifications/progress')) text += Buffer.from((await reader.read()).value!).toString('utf8');
      await waitForCall('tick_hang', before);
      await s.notify('notifications/cancelled', { requestId: 'c-1' });
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += Buffer.from(r.value).toString('utf8');
      const events = parseSse(text);
      expect(events.map((e) => e.method)).to.deep.equal(['notifications/progress']);
      expect(events.some((e) => 'result' in e || 'error' in e)).to.equal(false);
    });

    it('leaves a cancelled request out of a 2025-03-26 batch answer', async () => {
      const s = new RawSession(url, '2025-03-26');
      await s.initialize();
      const before = upstreams.calls.length;
      const pending = mcpFetch(url, {
        body: [
          { jsonrpc: '2.0', id: 'gone', method: 'tools/call', params: { name: 'slow', arguments: { ms: 20_000 } } },
          { jsonrpc: '2.0', id: 'kept', method: 'tools/call', params: { name: 'echo', arguments: { k: 1 } } },
        ],
        headers: s.headers(),
      });
      await waitForCall('slow', before);
      await s.notify('notifications/cancelled', { requestId: 'gone' });
      const reply = await pending;
      expect(reply.status).to.equal(200);
      expect(reply.json.map((r: { id: string }) => r.id)).to.deep.equal(['kept']);
    });

    it('gives the SDK client no response for an id it has forgotten (no "unknown message ID")', async () => {
      const client = new Client({ name: 'cancel-test', version: '1.0.0' });
      const errors: Error[] = [];
      client.onerror = (err) => errors.push(err);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        const before = upstreams.calls.length;
        const controller = new AbortController();
        const call = client.callTool({ name: 'slow', arguments: { ms: 20_000 } }, undefined, { signal: controller.signal });
        const seen = await waitForCall('slow', before);
        controller.abort('user');
        const outcome = await call.then(
          () => 'resolved',
          () => 'rejected',
        );
        expect(outcome).to.equal('rejected');
        while (!seen.aborted) await new Promise((r) => setTimeout(r, 5));
        // Every answer the server owes has been written before this returns; the ping round trip after
        // it gives the client time to read the cancelled call's stream to its end.
        await t.server.mcp.core.settled(5000);
        await client.ping();
        expect(errors.map((e) => e.message)).to.deep.equal([]);
      } finally {
        await client.close();
      }
    });
  });

  describe('Accept and the initialized notification', () => {
    it('serves a POST without Accept (any media type), refuses one listing only one of the two (406)', async () => {
      const none = await rawPost(url, {}, INIT);
      expect(none.status).to.equal(200);
      expect(none.headers['mcp-session-id']).to.be.a('string');
      const wildcard = await rawPost(url, { accept: '*/*' }, INIT);
      expect(wildcard.status).to.equal(200);
      for (const accept of ['application/json', 'text/event-stream', 'text/html']) {
        const refused = await rawPost(url, { accept }, INIT);
        expect(refused.status, accept).to.equal(406);
        expect(JSON.parse(refused.text).error.code, accept).to.equal(-32600);
      }
    });

    it('opens a GET stream without Accept, and refuses one that does not list text/event-stream (406)', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request(url, { method: 'GET', headers: s.headers() }, resolve);
        req.on('error', reject);
        req.end();
      });
      expect(stream.statusCode).to.equal(200);
      expect(stream.headers['content-type']).to.include('text/event-stream');
      stream.destroy();
      expect((await mcpFetch(url, { method: 'GET', headers: s.headers({ accept: 'application/json' }) })).status).to.equal(406);
    });

    it('serves requests sent before notifications/initialized, and marks the session initialized when it comes', async () => {
      const init = await mcpFetch(url, { body: INIT });
      const sessionId = init.headers.get('mcp-session-id')!;
      const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
      expect(t.server.mcp.core.sessions.get(sessionId)!.initialized).to.equal(false);
      const early = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers });
      expect(early.status).to.equal(200);
      expect(responseOf(early).result.tools).to.have.length(3);
      await mcpFetch(url, { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers });
      expect(t.server.mcp.core.sessions.get(sessionId)!.initialized).to.equal(true);
    });
  });

  describe('GET stream event ids and Last-Event-ID replay', () => {
    it('numbers list_changed events and replays those missed while disconnected', async () => {
      const created = (await t.owner.post('/api/v1/bundles', { name: 'Replayed', tools: [{ tool_id: tools.echo!.id }] })).body;
      const surl = `${t.url}/mcp/bundle/${created.bundle_key}`;
      const s = new RawSession(surl, '2025-11-25');
      await s.initialize();
      const rename = (name: string) => t.owner.put(`/api/v1/bundles/${created.id}/tools/${tools.echo!.id}/override`, { name });

      const first = await openStream(surl, s.headers());
      await first.until('stream open');
      await rename('echo_a');
      const seen = await first.until('list_changed');
      expect(eventIds(seen)).to.deep.equal(['1']);
      first.close();
      // Missed while no stream is open: a bundle change and a catalog change.
      await rename('echo_b');
      t.server.services.catalog.patchServer(serverId, { name: 'fix' });

      const second = await openStream(surl, s.headers({ 'last-event-id': '1' }));
      expect(second.res.status).to.equal(200);
      const replayed = await second.until('list_changed', 2);
      expect(eventIds(replayed)).to.deep.equal(['2', '3']);
      expect(parseSse(replayed).map((e) => e.method)).to.deep.equal([
        'notifications/tools/list_changed',
        'notifications/tools/list_changed',
      ]);
      await rename('echo_c');
      expect(eventIds(await second.until('list_changed', 3))).to.deep.equal(['2', '3', '4']);
      second.close();

      // Without Last-Event-ID (or with an id this session never sent) nothing is replayed.
      const fresh = await openStream(surl, s.headers({ 'last-event-id': '999' }));
      await fresh.until('stream open');
      await rename('echo_d');
      expect(eventIds(await fresh.until('list_changed'))).to.deep.equal(['5']);
      fresh.close();
    });

    it('replays a gateway settings change missed while disconnected', async () => {
      const user = await createUser(t, 'admin');
      const gurl = `${t.url}/mcp/gateway`;
      const auth = { authorization: `Bearer ${user.key}` };
      const init = await mcpFetch(gurl, { body: INIT, headers: auth });
      const headers = { ...auth, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      const first = await openStream(gurl, headers);
      await first.until('stream open');
      first.close();
      const session = t.server.mcp.core.sessions.get(headers['mcp-session-id'])!;
      expect((await user.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute' })).status).to.equal(200);
      // The change reaches the session (through the change bus) while no stream is open.
      while (session.events!.after('0').length === 0) await new Promise((r) => setTimeout(r, 5));
      expect(session.stream).to.equal(null);
      const second = await openStream(gurl, { ...headers, 'last-event-id': '0' });
      const replayed = await second.until('list_changed');
      expect(eventIds(replayed)).to.deep.equal(['1']);
      second.close();
    });
  });

  describe('legacy HTTP+SSE transport (2024-11-05)', () => {
    let bundle: { id: string; bundle_key: string };
    before(async () => {
      bundle = (await t.owner.post('/api/v1/bundles', { name: 'Old clients', tools: [{ tool_id: tools.echo!.id }] })).body;
    });

    /** An SDK client on the old transport; `version` is what its initialize asks for. */
    async function connectSse(sseUrl: string, headers: Record<string, string> = {}) {
      const transport = new SSEClientTransport(new URL(sseUrl), { requestInit: { headers } });
      const client = new Client({ name: 'sse-test', version: '1.0.0' });
      await client.connect(transport);
      return client;
    }

    it('serves a bundle to the SDK SSEClientTransport: tools, calls, list_changed on the stream', async () => {
      const client = await connectSse(`${t.url}/mcp/bundle/${bundle.bundle_key}/sse`);
      try {
        expect(client.getServerVersion()).to.include({ name: 'toolgate' });
        expect((await client.listTools()).tools.map((x) => x.name)).to.deep.equal(['echo']);
        const result = await client.callTool({ name: 'echo', arguments: { via: 'sse' } });
        expect(result.structuredContent).to.deep.equal({ args: { via: 'sse' } });
        const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
        await t.owner.put(`/api/v1/bundles/${bundle.id}/tools/${tools.echo!.id}/override`, { name: 'echo_sse' });
        await changed;
        expect((await client.listTools()).tools.map((x) => x.name)).to.deep.equal(['echo_sse']);
      } finally {
        await client.close();
      }
    });

    it('serves the gateway to the SDK SSEClientTransport with the API key on both requests', async () => {
      const client = await connectSse(`${t.url}/mcp/gateway/sse`, { authorization: `Bearer ${admin.key}` });
      try {
        expect((await client.listTools()).tools.map((x) => x.name)).to.include('echo');
        expect((await client.callTool({ name: 'echo', arguments: { g: 1 } })).structuredContent).to.deep.equal({ args: { g: 1 } });
      } finally {
        await client.close();
      }
      const anonymous = await fetch(`${t.url}/mcp/gateway/sse`, { headers: { accept: 'text/event-stream' } });
      expect(anonymous.status).to.equal(401);
    });

    it('announces the messages URL, answers 202, refuses unknown or foreign sessions (404), ends the session with the stream', async () => {
      const base = `${t.url}/mcp/bundle/${bundle.bundle_key}`;
      const stream = await openStream(`${base}/sse`, {});
      expect(stream.res.status).to.equal(200);
      const endpoint = /event: endpoint\ndata: (\S+)/.exec(await stream.until('sessionId='))![1]!;
      expect(endpoint).to.match(new RegExp(`^/mcp/bundle/${bundle.bundle_key}/messages\\?sessionId=[A-Za-z0-9_-]{32}$`));
      const messages = `${t.url}${endpoint}`;
      const sessionId = new URL(messages).searchParams.get('sessionId')!;
      // Checked against the contract (status declared, body valid).
      const post = (target: string, body: unknown) => mcpFetch(target, { body });
      const accepted = await post(messages, { ...INIT, params: { ...INIT.params, protocolVersion: '2024-11-05' } });
      expect(accepted.status).to.equal(202);
      const init = parseSse((await stream.until('"result"')).split('sessionId=')[1]!.replace(/^[^\n]*\n\n/, ''));
      expect(init[0].result.protocolVersion).to.equal('2024-11-05');
      expect((await post(`${base}/messages?sessionId=nope`, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).to.equal(404);
      // The session id is bound to the bundle and not usable on Streamable HTTP.
      const otherBundle = `${t.url}/mcp/bundle/${(await t.owner.post('/api/v1/bundles', { name: 'Foreign', tools: [] })).body.bundle_key}`;
      expect((await post(`${otherBundle}/messages?sessionId=${sessionId}`, { jsonrpc: '2.0', id: 3, method: 'ping' })).status).to.equal(
        404,
      );
      expect(
        (await mcpFetch(base, { body: { jsonrpc: '2.0', id: 4, method: 'ping' }, headers: { 'mcp-session-id': sessionId } })).status,
      ).to.equal(404);
      const wrongMethod = await mcpFetch(`${base}/sse`, { body: { jsonrpc: '2.0', id: 6, method: 'ping' } });
      expect(wrongMethod.status).to.equal(405);
      expect(wrongMethod.headers.get('allow')).to.equal('GET');
      stream.close();
      while (t.server.mcp.core.sessions.get(sessionId)) await new Promise((r) => setTimeout(r, 5));
      expect((await post(messages, { jsonrpc: '2.0', id: 5, method: 'ping' })).status).to.equal(404);
    });
  });
});
