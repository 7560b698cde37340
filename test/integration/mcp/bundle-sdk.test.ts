import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, schema, TestUpstreams } from '../../helpers/test-upstreams.js';

/** The SDK client asks for the newest version; this makes it ask for `version` instead. */
async function connect(url: string, version: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    if ('method' in message && message.method === 'initialize')
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    return send(message, options);
  };
  const client = new Client({ name: 'sdk-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('/mcp/bundle/{bundle_key} with the MCP SDK client', () => {
  let t: TestServer;
  let upstreams: TestUpstreams;
  let bundle: { id: string; bundle_key: string };
  let tools: ReturnType<typeof putFixtureServer>['tools'];

  before(async () => {
    upstreams = new TestUpstreams();
    t = await startTestServer({ start: { upstreams } });
    ({ tools } = putFixtureServer(t.server.services.catalog, 'sdkfix', [
      { name: 'echo' },
      {
        name: 'create_issue',
        inputSchema: schema({ title: { type: 'string' }, repo: { type: 'string' }, label: { type: 'string' } }, ['title', 'repo']),
      },
      { name: 'progress' },
    ]));
    bundle = (
      await t.owner.post('/api/v1/bundles', {
        name: 'SDK bundle',
        description: 'Bundle for SDK clients',
        tools: [
          { tool_id: tools.create_issue!.id, override: { name: 'file_bug', defaults: { label: 'triage' }, pinned: { repo: 'acme/app' } } },
          { tool_id: tools.echo!.id },
          { tool_id: tools.progress!.id },
        ],
      })
    ).body;
  });
  after(() => t.stop());

  for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    describe(`protocol ${version}`, () => {
      let client: Client;
      let transport: StreamableHTTPClientTransport;
      before(async () => {
        ({ client, transport } = await connect(`${t.url}/mcp/bundle/${bundle.bundle_key}`, version));
      });
      after(async () => {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      });

      it('negotiates the version and sees the bundle description as instructions', () => {
        expect(transport.protocolVersion).to.equal(version);
        expect(transport.sessionId).to.be.a('string');
        expect(client.getServerVersion()).to.include({ name: 'toolgate' });
        expect(client.getInstructions()).to.equal('Bundle for SDK clients');
        expect(client.getServerCapabilities()?.tools?.listChanged).to.equal(true);
      });

      it('lists the tools with overrides applied, and calls a renamed tool', async () => {
        const { tools: listed } = await client.listTools();
        expect(listed.map((x) => x.name)).to.deep.equal(['file_bug', 'echo', 'progress']);
        expect(listed[0]!.inputSchema.required).to.deep.equal(['title']);
        const before = upstreams.calls.length;
        const result = await client.callTool({ name: 'file_bug', arguments: { title: version } });
        expect(result.isError).to.not.equal(true);
        expect(upstreams.calls.slice(before)).to.deep.equal([
          {
            serverId: tools.create_issue!.serverId,
            tool: 'create_issue',
            args: { label: 'triage', title: version, repo: 'acme/app' },
            aborted: false,
          },
        ]);
      });

      it('receives progress notifications', async () => {
        const seen: number[] = [];
        const result = await client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: (p) => seen.push(p.progress) });
        expect(seen).to.deep.equal([1, 2, 3]);
        expect(result.content).to.deep.equal([{ type: 'text', text: 'done' }]);
      });

      it('lists and reads resources, lists and gets prompts, pings', async () => {
        expect((await client.listResources()).resources.map((r) => r.uri)).to.deep.equal(['test://sdkfix/static']);
        expect((await client.listResourceTemplates()).resourceTemplates).to.have.length(1);
        const read = await client.readResource({ uri: 'test://sdkfix/static' });
        expect(read.contents[0]!.uri).to.equal('test://sdkfix/static');
        expect((await client.listPrompts()).prompts.map((p) => p.name)).to.deep.equal(['sdkfix_prompt']);
        const prompt = await client.getPrompt({ name: 'sdkfix_prompt', arguments: { topic: 'x' } });
        expect(prompt.messages).to.have.length(1);
        expect(await client.ping()).to.deep.equal({});
      });

      it('reports an unknown tool as a JSON-RPC error', async () => {
        let error: unknown;
        try {
          await client.callTool({ name: 'create_issue', arguments: {} });
        } catch (err) {
          error = err;
        }
        expect((error as { code?: number }).code).to.equal(-32602);
      });
    });
  }

  it('hears notifications/tools/list_changed on its GET stream when the bundle changes', async () => {
    const { client, transport } = await connect(`${t.url}/mcp/bundle/${bundle.bundle_key}`, '2025-11-25');
    try {
      let heard = false;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heard = true;
      });
      // The SDK opens its GET stream on its own after initialize; change the bundle until the stream hears it.
      for (let i = 0; i < 100 && !heard; i++) {
        await t.owner.put(`/api/v1/bundles/${bundle.id}/tools/${tools.echo!.id}/override`, { description: 'echo, described' });
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(heard).to.equal(true);
      const { tools: listed } = await client.listTools();
      expect(listed.find((x) => x.name === 'echo')!.description).to.equal('echo, described');
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });
});
