import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { REQUEST_STATE, STATELESS_VERSION, startStatelessServer, type StatelessServer } from '../../fixtures/stateless-server.js';
import { DualEraHttpClientTransport } from '../../../src/upstream/dual-era-http-transport.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { register, waitConnected } from '../../helpers/upstreams.js';

/** The text of a tools/call result's first block. */
function textOf(result: unknown): string {
  return (result as { content: { text?: string }[] }).content[0]?.text ?? '';
}

describe('An upstream that speaks only MCP 2026-07-28 (stateless)', () => {
  let t: TestServer;
  let upstream: StatelessServer;
  let serverId: string;
  let endpoint: string;
  before(async () => {
    upstream = await startStatelessServer();
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    const server = await register(t.owner, { name: 'stateless', transport: 'streamable_http', url: upstream.url });
    serverId = server.id as string;
    await waitConnected(t.owner, serverId, 2);
    const tools = await t.owner.get(`/api/v1/servers/${serverId}/tools`);
    const bundle = await t.owner.post('/api/v1/bundles', {
      name: 'stateless-bundle',
      tools: (tools.body.items as { id: string }[]).map((tool) => ({ tool_id: tool.id })),
    });
    expect(bundle.status).to.equal(201);
    endpoint = `${t.url}/mcp/bundle/${bundle.body.bundle_key as string}`;
  });
  after(async () => {
    await t?.stop();
    await upstream?.close();
  });

  async function connect(capabilities: Record<string, unknown> = {}): Promise<Client> {
    const client = new Client({ name: 'stateless-test', version: '1.0.0' }, { capabilities });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    return client;
  }

  it('is connected in 2026-07-28 after server/discover, never sent initialize, every request with its _meta', async () => {
    const view = await t.owner.get(`/api/v1/servers/${serverId}`);
    expect(view.body.status).to.equal('connected');
    expect(view.body.protocol_version).to.equal(STATELESS_VERSION);
    expect(view.body.server_info).to.include({ name: 'stateless-fixture' });
    const methods = upstream.seen.map((r) => r.body.method);
    expect(methods[0]).to.equal('server/discover');
    expect(methods).to.include('tools/list');
    expect(methods).to.not.include('initialize');
    expect(methods).to.not.include('notifications/initialized');
    for (const r of upstream.seen) {
      const meta = r.body.params?._meta as Record<string, unknown>;
      expect(meta['io.modelcontextprotocol/protocolVersion']).to.equal(STATELESS_VERSION);
      expect(meta['io.modelcontextprotocol/clientCapabilities']).to.be.an('object');
      expect(meta['io.modelcontextprotocol/clientInfo']).to.have.property('name');
    }
  });

  it('leaves a tool whose x-mcp-header is invalid out of the catalog', async () => {
    const tools = await t.owner.get(`/api/v1/servers/${serverId}/tools`);
    expect((tools.body.items as { name: string }[]).map((tool) => tool.name).sort()).to.deep.equal(['confirm', 'echo_region']);
  });

  it('sends tools/call with Mcp-Method, Mcp-Name and the x-mcp-header argument as Mcp-Param-Region (Base64 when not plain ASCII)', async () => {
    const client = await connect();
    try {
      expect(textOf(await client.callTool({ name: 'echo_region', arguments: { region: 'us-west1', note: 'n' } }))).to.equal(
        'region="us-west1"',
      );
      expect(textOf(await client.callTool({ name: 'echo_region', arguments: { region: ' Zürich' } }))).to.equal('region=" Zürich"');
      expect(textOf(await client.callTool({ name: 'echo_region', arguments: {} }))).to.equal('region=undefined');
    } finally {
      await client.close();
    }
    const calls = upstream.seen.filter((r) => r.body.method === 'tools/call').slice(-3);
    expect(calls.map((c) => [c.headers['mcp-method'], c.headers['mcp-name']])).to.deep.equal(Array(3).fill(['tools/call', 'echo_region']));
    expect(calls[0]!.headers['mcp-param-region']).to.equal('us-west1');
    expect(calls[0]!.headers).to.not.have.property('mcp-param-note');
    expect(calls[1]!.headers['mcp-param-region']).to.equal(`=?base64?${Buffer.from(' Zürich').toString('base64')}?=`);
    expect(calls[2]!.headers).to.not.have.property('mcp-param-region');
  });

  it('answers an input-required result through the caller and calls again with its answer and the requestState unchanged', async () => {
    const client = await connect({ elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: {} };
    });
    try {
      // The caller accepted the form as offered: the field's default is applied on the way back (SEP-1034).
      expect(textOf(await client.callTool({ name: 'confirm', arguments: {} }))).to.equal('action=accept confirmed=true');
    } finally {
      await client.close();
    }
    expect(asked).to.deep.equal(['Go ahead?']);
    const [first, retry] = upstream.seen.filter((r) => r.body.method === 'tools/call' && r.body.params?.name === 'confirm');
    expect(first!.body.params).to.not.have.property('inputResponses');
    expect(retry!.body.params?.requestState).to.equal(REQUEST_STATE);
    expect(retry!.body.id).to.not.equal(first!.body.id);
  });

  it('gives a caller that cannot answer the input request an error, not a hang', async () => {
    const client = await connect();
    try {
      const outcome = await client.callTool({ name: 'confirm', arguments: {} }).then(
        (r) => ({ ok: true as const, r }),
        (err: unknown) => ({ ok: false as const, err }),
      );
      if (outcome.ok) expect(outcome.r.isError).to.equal(true);
      else expect(String(outcome.err)).to.match(/Method not found|-32601/);
    } finally {
      await client.close();
    }
  });
});

describe('Version discovery toward a legacy upstream', () => {
  it('takes a server that leaves server/discover unanswered for a legacy one, and initializes it', async function () {
    this.timeout(20_000);
    const methods: string[] = [];
    const server = http.createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        if (req.method !== 'POST') return void res.writeHead(405).end();
        const msg = JSON.parse(text) as { id?: unknown; method: string };
        methods.push(msg.method);
        if (msg.method === 'server/discover') return; // never answered
        if (msg.id === undefined) return void res.writeHead(202).end();
        const result =
          msg.method === 'initialize'
            ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'legacy', version: '1' } }
            : {};
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const transport = new DualEraHttpClientTransport(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`));
    const client = new Client({ name: 'discovery-test', version: '1' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).to.deep.include({ name: 'legacy' });
      expect(transport.protocolVersionInUse).to.equal(undefined);
      expect(methods.slice(0, 2)).to.deep.equal(['server/discover', 'initialize']);
    } finally {
      await client.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
