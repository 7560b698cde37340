import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { mcpFetch, modernRequest } from '../../helpers/mcp-http.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { EVERYTHING_BIN, register, startEverythingHttp, waitConnected, waitFor, type ChildServer } from '../../helpers/upstreams.js';

/**
 * The reference server offers these only to a client that declares what they ask it for (its
 * `-async` variants also need task-augmented requests, which the gateway does not declare).
 */
const SAMPLING_TOOLS = ['trigger-sampling-request'];
const ELICITATION_TOOLS = ['trigger-elicitation-request'];
const ROOTS_TOOLS = ['get-roots-list'];

async function toolNames(
  transport: StdioClientTransport | StreamableHTTPClientTransport,
  capabilities: ClientCapabilities,
): Promise<string[]> {
  const client = new Client({ name: 'capability-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

/**
 * Toward an upstream the gateway declares sampling, elicitation and roots (it relays them to
 * whichever caller needs them), so its catalog holds tools the upstream offers only to clients
 * with those features. A caller that did not declare them must not see those tools: through
 * Toolgate it sees what it would see talking to the upstream itself.
 */
describe('tools an upstream offers only to clients with sampling, elicitation or roots', function () {
  this.timeout(120_000);
  let t: TestServer;
  let everythingHttp: ChildServer;
  const endpoints: Record<string, string> = {};

  before(async () => {
    [t, everythingHttp] = await Promise.all([
      startTestServer({ env: { ...LOOPBACK_UPSTREAMS, TOOLGATE_UPSTREAM_CONNECT_TIMEOUT_MS: '20000' } }),
      startEverythingHttp(),
    ]);
    for (const [key, body] of [
      ['stdio', { transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] }],
      ['http', { transport: 'streamable_http', url: everythingHttp.url }],
    ] as const) {
      const server = await register(t.owner, { name: `everything-${key}`, ...body });
      await waitConnected(t.owner, server.id, 10);
      // The probe after the sync has found the tools only some clients are offered.
      await waitFor('the capability probe', () => t.server.services.catalog.toolsOfServer(server.id).some((x) => x.clientCapabilities));
      const tools = (await t.owner.get(`/api/v1/servers/${server.id}/tools?page_size=100`)).body.items as { id: string; name: string }[];
      const bundle = await t.owner.post('/api/v1/bundles', { name: `everything ${key}`, tools: tools.map((x) => ({ tool_id: x.id })) });
      expect(bundle.status).to.equal(201);
      endpoints[key] = `${t.url}/mcp/bundle/${bundle.body.bundle_key}`;
    }
  });
  after(async () => {
    await t?.stop();
    await everythingHttp?.stop();
  });

  it('the catalog keeps every tool and names what each gated one needs', async () => {
    const servers = (await t.owner.get('/api/v1/servers')).body.items as { id: string; name: string }[];
    const stdio = servers.find((s) => s.name === 'everything-stdio')!;
    // Found after the sync, by the probe that follows it.
    const needsOf = () =>
      Object.fromEntries(
        t.server.services.catalog
          .toolsOfServer(stdio.id)
          .filter((x) => x.clientCapabilities)
          .map((x) => [x.name, x.clientCapabilities]),
      );
    expect(await waitFor('the probe', () => Object.keys(needsOf()).length === 3 && needsOf())).to.deep.equal({
      ...Object.fromEntries(SAMPLING_TOOLS.map((n) => [n, ['sampling']])),
      ...Object.fromEntries(ELICITATION_TOOLS.map((n) => [n, ['elicitation']])),
      ...Object.fromEntries(ROOTS_TOOLS.map((n) => [n, ['roots']])),
    });
  });

  for (const route of ['stdio', 'http'] as const) {
    it(`${route} upstream: each caller lists what the upstream lists to a client with its capabilities`, async () => {
      const cases: ClientCapabilities[] = [
        {},
        { sampling: {} },
        { elicitation: {} },
        { roots: {} },
        { sampling: {}, elicitation: {}, roots: {} },
      ];
      for (const capabilities of cases) {
        const direct = await toolNames(
          route === 'stdio'
            ? new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], stderr: 'ignore' })
            : new StreamableHTTPClientTransport(new URL(everythingHttp.url)),
          capabilities,
        );
        const through = await toolNames(new StreamableHTTPClientTransport(new URL(endpoints[route]!)), capabilities);
        expect(through, JSON.stringify(capabilities)).to.deep.equal(direct);
      }
      const plain = await toolNames(new StreamableHTTPClientTransport(new URL(endpoints[route]!)), {});
      for (const gated of [...SAMPLING_TOOLS, ...ELICITATION_TOOLS, ...ROOTS_TOOLS]) expect(plain).not.to.include(gated);
    });
  }

  it('/mcp/gateway: the same tools are left out of the list and refused on call for a caller without the capability', async () => {
    const ask = async (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown>) => {
      const { headers, body } = modernRequest(method, { ...params, _meta: { 'io.modelcontextprotocol/clientCapabilities': capabilities } });
      const reply = await mcpFetch(`${t.url}/mcp/gateway`, { body, headers: { ...headers, authorization: `Bearer ${t.ownerKey}` } });
      return reply.json as { result?: { tools: { name: string }[] }; error?: { code: number } };
    };
    const listed = async (capabilities: Record<string, unknown>) =>
      (await ask('tools/list', {}, capabilities)).result!.tools.map((x) => x.name).filter((n) => n.includes('get-roots-list'));
    expect(await listed({})).to.deep.equal([]);
    expect(await listed({ roots: {} })).to.have.length(2);
    const call = await ask('tools/call', { name: (await listed({ roots: {} }))[0], arguments: {} }, {});
    expect(call.error?.code).to.equal(-32021);
  });

  it('a caller without sampling that calls a sampling tool is told what it lacks; one with sampling gets the request', async () => {
    const plain = new Client({ name: 'plain', version: '1.0.0' }, { capabilities: {} });
    await plain.connect(new StreamableHTTPClientTransport(new URL(endpoints.stdio!)));
    try {
      const refused = await plain.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } }).then(
        () => null,
        (err: { code?: number; message?: string; data?: unknown }) => err,
      );
      expect(refused).to.not.equal(null);
      expect(refused!.code).to.equal(-32602);
      expect(refused!.message).to.match(/needs a client that declares sampling/);
      expect(refused!.data).to.deep.equal({ requiredCapabilities: { sampling: {} } });
    } finally {
      await plain.close();
    }

    const sampler = new Client({ name: 'sampler', version: '1.0.0' }, { capabilities: { sampling: {} } });
    let asked = 0;
    sampler.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked += 1;
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled answer' } };
    });
    await sampler.connect(new StreamableHTTPClientTransport(new URL(endpoints.stdio!)));
    try {
      const result = await sampler.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi' } });
      expect(result.isError ?? false).to.equal(false);
      expect(JSON.stringify(result.content)).to.include('sampled answer');
      expect(asked).to.equal(1);
    } finally {
      await sampler.close();
    }
  });

  it('2026-07-28: a stateless call of a gated tool without the capability is -32021 naming it', async () => {
    const res = await fetch(endpoints.http!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'get-roots-list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'get-roots-list',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          },
        },
      }),
    });
    expect(res.status).to.equal(400);
    const body = (await res.json()) as { error: { code: number; data: unknown } };
    expect(body.error.code).to.equal(-32021);
    expect(body.error.data).to.deep.equal({ requiredCapabilities: { roots: {} } });
  });
});
