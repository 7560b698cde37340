import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { ACCEPT_BOTH, mcpFetch, modernRequest, parseSse, responseOf } from '../../helpers/mcp-http.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { register, startFixtureHttp, waitConnected, waitFor, type ChildServer } from '../../helpers/upstreams.js';

/** An SDK v1 client on an MCP endpoint, declaring `capabilities` (with a bearer key for the gateway). */
async function connect(url: string, capabilities: ClientCapabilities = {}, key?: string): Promise<Client> {
  const client = new Client({ name: 'relay-test', version: '1.0.0' }, { capabilities });
  const requestInit = key ? { headers: { authorization: `Bearer ${key}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(new URL(url), requestInit ? { requestInit } : {}));
  return client;
}

/** The text of a tools/call result's first block. */
function textOf(result: unknown): string {
  const block = (result as { content: { type: string; text?: string }[] }).content[0];
  return block?.text ?? '';
}

/** A promise with its resolve function outside. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const SAMPLING_REPLY = (prompt: string) => ({
  model: 'test-model',
  role: 'assistant' as const,
  content: { type: 'text' as const, text: `reply to ${prompt}` },
});

function promptOf(request: { params: { messages: { content: unknown }[] } }): string {
  const content = request.params.messages[0]?.content as { text?: string } | undefined;
  return content?.text ?? '';
}

describe('MCP features relayed through /mcp/bundle (sampling, elicitation, roots, logging, completion, subscriptions)', () => {
  let t: TestServer;
  let fixture: FixtureBundle;
  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_UPSTREAM_RETRY_BASE_MS: '100' } });
    fixture = await setupFixtureBundle(t.owner, t.url, { name: 'relay' });
  });
  after(() => t?.stop());

  describe('server-to-client requests (stdio upstream)', () => {
    it('relays sampling/createMessage to the calling session and the answer back to the upstream', async () => {
      const client = await connect(fixture.endpoint, { sampling: {} });
      const seen: string[] = [];
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        seen.push(promptOf(request));
        return SAMPLING_REPLY(promptOf(request));
      });
      const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hello' } });
      expect(result.isError).to.not.equal(true);
      expect(textOf(result)).to.equal('LLM response: reply to hello');
      expect(seen).to.deep.equal(['hello']);
      await client.close();
    });

    it('relays elicitation/create and roots/list', async () => {
      const client = await connect(fixture.endpoint, { elicitation: {}, roots: {} });
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        expect(request.params.message).to.equal('Who are you?');
        return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
      });
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }));
      const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
      expect(textOf(elicited)).to.equal('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
      const roots = await client.callTool({ name: 'list_roots', arguments: {} });
      expect(textOf(roots)).to.equal('["file:///work/project"]');
      await client.close();
    });

    it('sends the request on the tools/call response stream, related to the call, and takes the answer in a later POST', async () => {
      const init = await mcpFetch(fixture.endpoint, {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: { sampling: {} }, clientInfo: { name: 'raw', version: '1' } },
        },
      });
      const session = init.headers.get('mcp-session-id')!;
      const headers = {
        accept: ACCEPT_BOTH,
        'content-type': 'application/json',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      };
      const call = await fetch(fixture.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'test_sampling', arguments: { prompt: 'raw' } },
        }),
      });
      expect(call.headers.get('content-type')).to.contain('text/event-stream');
      const reader = call.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      let request: any;
      while (!request) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        request = parseSse(text.slice(0, text.lastIndexOf('\n\n') + 2)).find((m) => m.method === 'sampling/createMessage');
      }
      expect(request, 'sampling request on the call stream').to.not.equal(undefined);
      expect(request.id).to.be.a('string');
      expect(request.params.messages[0].content.text).to.equal('raw');
      const answer = await fetch(fixture.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: request.id, result: SAMPLING_REPLY('raw') }),
      });
      expect(answer.status).to.equal(202);
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const response = parseSse(text).find((m) => m.id === 7);
      expect(response.result.content[0].text).to.equal('LLM response: reply to raw');
    });

    it('answers the upstream -32601 for a caller that did not declare the capability', async () => {
      const client = await connect(fixture.endpoint, {});
      const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'nobody' } });
      expect(result.isError).to.equal(true);
      expect(textOf(result)).to.match(/-32601|Method not found/);
      await client.close();
    });

    it('hands each of two callers of a stdio upstream, both in flight at once, exactly its own request (session-affine connections)', async () => {
      const a = await connect(fixture.endpoint, { sampling: {} });
      const b = await connect(fixture.endpoint, { sampling: {} });
      const seenByA: string[] = [];
      const seenByB: string[] = [];
      const aAsked = deferred();
      const releaseA = deferred();
      a.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        seenByA.push(promptOf(request));
        aAsked.resolve();
        await releaseA.promise;
        return SAMPLING_REPLY(promptOf(request));
      });
      b.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        seenByB.push(promptOf(request));
        return SAMPLING_REPLY(promptOf(request));
      });
      const callA = a.callTool({ name: 'test_sampling', arguments: { prompt: 'from A' } });
      await aAsked.promise;
      // A's call is in flight and waits on A: B declared sampling, so its call runs on a stdio
      // connection of its own and its request reaches B alone.
      const resultB = await b.callTool({ name: 'test_sampling', arguments: { prompt: 'from B' } });
      releaseA.resolve();
      const resultA = await callA;
      expect(textOf(resultA)).to.equal('LLM response: reply to from A');
      expect(textOf(resultB)).to.equal('LLM response: reply to from B');
      expect(seenByA).to.deep.equal(['from A']);
      expect(seenByB).to.deep.equal(['from B']);
      await a.close();
      await b.close();
    });
  });

  describe('/mcp/gateway (direct mode)', () => {
    it('relays sampling to the calling session and upstream log messages to it', async () => {
      const client = await connect(`${t.url}/mcp/gateway`, { sampling: {} }, t.ownerKey);
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => SAMPLING_REPLY(promptOf(request)));
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
      const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'via gateway' } });
      expect(textOf(sampled)).to.equal('LLM response: reply to via gateway');
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      expect(logs).to.deep.equal(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
      await client.close();
    });
  });

  describe('server-to-client requests (Streamable HTTP upstream)', () => {
    let upstream: ChildServer;
    let endpoint: string;
    before(async () => {
      upstream = await startFixtureHttp('http');
      const server = await register(t.owner, { name: 'relay-http', transport: 'streamable_http', url: upstream.url });
      await waitConnected(t.owner, server.id, 10);
      const listed = await t.owner.get(`/api/v1/servers/${server.id}/tools?page_size=100`);
      const sampling = (listed.body.items as { id: string; name: string }[]).find((x) => x.name === 'test_sampling')!;
      const created = await t.owner.post('/api/v1/bundles', { name: 'relay-http-bundle', tools: [{ tool_id: sampling.id }] });
      expect(created.status).to.equal(201);
      endpoint = `${t.url}/mcp/bundle/${created.body.bundle_key}`;
    });
    after(() => upstream?.stop());

    it('routes concurrent callers on one upstream connection each to their own requests', async () => {
      const a = await connect(endpoint, { sampling: {} });
      const b = await connect(endpoint, { sampling: {} });
      const seen = { a: [] as string[], b: [] as string[] };
      const arrived = { a: deferred(), b: deferred() };
      // Each answer waits until both requests have arrived, so both calls are in flight together.
      const handler = (who: 'a' | 'b') => async (request: { params: { messages: { content: unknown }[] } }) => {
        seen[who].push(promptOf(request));
        arrived[who].resolve();
        await Promise.all([arrived.a.promise, arrived.b.promise]);
        return SAMPLING_REPLY(`${promptOf(request)} via ${who}`);
      };
      a.setRequestHandler(CreateMessageRequestSchema, handler('a'));
      b.setRequestHandler(CreateMessageRequestSchema, handler('b'));
      const [ra, rb] = await Promise.all([
        a.callTool({ name: 'test_sampling', arguments: { prompt: 'prompt of A' } }),
        b.callTool({ name: 'test_sampling', arguments: { prompt: 'prompt of B' } }),
      ]);
      expect(textOf(ra)).to.equal('LLM response: reply to prompt of A via a');
      expect(textOf(rb)).to.equal('LLM response: reply to prompt of B via b');
      expect(seen).to.deep.equal({ a: ['prompt of A'], b: ['prompt of B'] });
      await a.close();
      await b.close();
    });
  });

  describe('logging', () => {
    it('relays the upstream log messages of a call to its caller, from the level logging/setLevel chose', async () => {
      const client = await connect(fixture.endpoint);
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
      const first = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      expect(first.isError).to.not.equal(true);
      expect(logs).to.deep.equal(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
      expect(await client.setLoggingLevel('warning')).to.deep.equal({});
      logs.length = 0;
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      expect(logs).to.deep.equal([]);
      await client.close();
    });

    it('rejects an unknown level with -32602', async () => {
      const client = await connect(fixture.endpoint);
      let code: unknown;
      await client.request({ method: 'logging/setLevel', params: { level: 'loud' } } as never, {} as never).catch((e) => (code = e.code));
      expect(code).to.equal(-32602);
      await client.close();
    });

    it('2026-07-28: logs only to a request whose _meta sets a log level', async () => {
      const quiet = modernRequest('tools/call', { name: 'test_tool_with_logging', arguments: {} });
      const quietReply = await mcpFetch(fixture.endpoint, quiet);
      expect(responseOf(quietReply).result.content[0].text).to.equal('Tool with logging executed successfully');
      expect(quietReply.events.filter((e) => e.method === 'notifications/message')).to.deep.equal([]);
      const loud = modernRequest('tools/call', {
        name: 'test_tool_with_logging',
        arguments: {},
        _meta: { 'io.modelcontextprotocol/logLevel': 'info' },
      });
      const loudReply = await mcpFetch(fixture.endpoint, loud);
      expect(loudReply.events.filter((e) => e.method === 'notifications/message').map((e) => e.params.data)).to.deep.equal([
        'Tool execution started',
        'Tool processing data',
        'Tool execution completed',
      ]);
      const setLevel = modernRequest('logging/setLevel', { level: 'info' });
      const removed = await mcpFetch(fixture.endpoint, setLevel);
      expect(removed.status).to.equal(404);
      expect(removed.json.error.code).to.equal(-32601);
    });
  });

  describe('completion/complete', () => {
    it('forwards completions of prompt arguments and resource template variables', async () => {
      const client = await connect(fixture.endpoint);
      const prompt = await client.complete({
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'pa' },
      });
      expect(prompt.completion.values).to.deep.equal(['paris', 'park', 'party']);
      const template = await client.complete({
        ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
        argument: { name: 'id', value: '1' },
      });
      expect(template.completion.values).to.be.an('array');
      let code: unknown;
      await client
        .complete({ ref: { type: 'ref/prompt', name: 'no_such_prompt' }, argument: { name: 'x', value: '' } })
        .catch((e: { code?: unknown }) => (code = e.code));
      expect(code).to.equal(-32602);
      await client.close();
    });
  });

  describe('resource subscriptions', () => {
    it('relays subscribe and unsubscribe, and delivers notifications/resources/updated to the subscribed session', async () => {
      const client = await connect(fixture.endpoint);
      const other = await connect(fixture.endpoint);
      const updated: string[] = [];
      const otherUpdated: string[] = [];
      const got = deferred();
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updated.push(n.params.uri);
        got.resolve();
      });
      other.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void otherUpdated.push(n.params.uri));
      const uri = 'test://watched-resource';
      expect(await client.subscribeResource({ uri })).to.deep.equal({});
      expect(textOf(await client.callTool({ name: 'touch_resource', arguments: { uri } }))).to.equal(`updated: ${uri}`);
      await got.promise;
      expect(updated).to.deep.equal([uri]);
      expect(await client.unsubscribeResource({ uri })).to.deep.equal({});
      // The upstream itself was unsubscribed (no session holds the URI any more).
      expect(textOf(await client.callTool({ name: 'touch_resource', arguments: { uri } }))).to.equal(`not subscribed: ${uri}`);
      expect(otherUpdated).to.deep.equal([]);
      // An unknown URI: the resources specification's "resource not found", naming the URI.
      let refusal: { code?: unknown; data?: unknown } = {};
      await client.subscribeResource({ uri: 'test://nowhere' }).catch((e: { code?: unknown; data?: unknown }) => (refusal = e));
      expect(refusal.code).to.equal(-32002);
      expect(refusal.data).to.deep.equal({ uri: 'test://nowhere' });
      await client.close();
      await other.close();
    });

    it('subscribes the upstream again after it reconnects (a new process has forgotten the subscription)', async () => {
      const client = await connect(fixture.endpoint);
      const got = deferred<string>();
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => got.resolve(n.params.uri));
      const uri = 'test://watched-resource';
      await client.subscribeResource({ uri });
      const pool = t.server.services.pool;
      const pid = pool.state(fixture.serverId)?.pid;
      await t.server.services.upstreams.callTool(fixture.serverId, 'crash', {}).catch(() => undefined);
      await waitFor('the fixture reconnected', () => {
        const state = pool.state(fixture.serverId);
        return state?.status === 'connected' && state.pid !== pid;
      });
      await waitFor('the subscription restored', async () => {
        const touched = await client.callTool({ name: 'touch_resource', arguments: { uri } });
        return textOf(touched) === `updated: ${uri}`;
      });
      expect(await got.promise).to.equal(uri);
      await client.close();
    });
  });
});
