import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { setupFixtureBundle, type FixtureBundle } from '../../../helpers/fixture-bundle.js';
import { LOOPBACK_UPSTREAMS, startTestServer, type TestServer } from '../../../helpers/test-server.js';

/** An SDK v1 client on the HTTP+SSE transport (2024-11-05) of `sseUrl`, declaring `capabilities`. */
async function connectSse(sseUrl: string, capabilities: ClientCapabilities, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'sse-relay', version: '1.0.0' }, { capabilities });
  await client.connect(new SSEClientTransport(new URL(sseUrl), { requestInit: { headers } }));
  return client;
}

function textOf(result: unknown): string {
  return (result as { content: { text?: string }[] }).content[0]?.text ?? '';
}

describe('The HTTP+SSE endpoint (…/sse) relays sampling, elicitation and roots both ways', function () {
  this.timeout(90_000);
  let t: TestServer;
  let fixture: FixtureBundle;
  let sseUrl: string;
  before(async () => {
    t = await startTestServer({ env: { ...LOOPBACK_UPSTREAMS } });
    fixture = await setupFixtureBundle(t.owner, t.url, {
      name: 'sse-relay',
      tools: ['test_sampling', 'test_elicitation', 'list_roots', 'relay_all', 'test_tool_with_logging'],
    });
    sseUrl = `${fixture.endpoint}/sse`;
  });
  after(() => t?.stop());

  it('sampling/createMessage goes out on the stream and the answer POSTed to the messages URL goes back upstream', async () => {
    const client = await connectSse(sseUrl, { sampling: {} });
    try {
      const seen: string[] = [];
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        const content = request.params.messages[0]?.content as { text?: string };
        seen.push(content.text ?? '');
        return { model: 'm', role: 'assistant', content: { type: 'text', text: `reply to ${content.text}` } };
      });
      const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'over sse' } });
      expect(textOf(result)).to.equal('LLM response: reply to over sse');
      expect(seen).to.deep.equal(['over sse']);
    } finally {
      await client.close();
    }
  });

  it('elicitation/create and roots/list, and log messages on the stream', async () => {
    const client = await connectSse(sseUrl, { elicitation: {}, roots: {} });
    try {
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { username: 'ada', email: 'a@b.c' } }));
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///srv/project', name: 'p' }] }));
      const logs: unknown[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
      const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } });
      expect(textOf(elicited)).to.equal('User response: action=accept, content={"username":"ada","email":"a@b.c"}');
      const roots = await client.callTool({ name: 'list_roots', arguments: {} });
      expect(textOf(roots)).to.equal('["file:///srv/project"]');
      await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
      expect(logs).to.deep.equal(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    } finally {
      await client.close();
    }
  });

  it("the client's error answer reaches the upstream as an error", async () => {
    const client = await connectSse(sseUrl, { sampling: {} });
    try {
      client.setRequestHandler(CreateMessageRequestSchema, async () => {
        throw new McpError(ErrorCode.InvalidRequest, 'the user declined');
      });
      const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'no' } });
      expect(result.isError).to.equal(true);
      expect(textOf(result)).to.contain('the user declined');
    } finally {
      await client.close();
    }
  });

  it('a client that declared no capability is not asked (the upstream gets -32601)', async () => {
    const client = await connectSse(sseUrl, {});
    try {
      const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'x' } });
      expect(result.isError).to.equal(true);
      expect(textOf(result)).to.match(/Method not found|-32601/);
    } finally {
      await client.close();
    }
  });

  it('several SSE clients at once each get only their own requests', async () => {
    const clients = await Promise.all([0, 1, 2, 3].map(() => connectSse(sseUrl, { sampling: {}, elicitation: {} })));
    try {
      const seen = clients.map(() => [] as string[]);
      clients.forEach((client, i) => {
        client.setRequestHandler(ElicitRequestSchema, async (r) => {
          seen[i]!.push(String(r.params.message));
          return { action: 'accept', content: { answer: `a${i}` } };
        });
        client.setRequestHandler(CreateMessageRequestSchema, async (r) => {
          seen[i]!.push(String((r.params.messages[0]?.content as { text?: string }).text));
          return { model: 'm', role: 'assistant', content: { type: 'text', text: `s${i}` } };
        });
      });
      const results = await Promise.all(clients.map((c, i) => c.callTool({ name: 'relay_all', arguments: { tag: `t${i}` } })));
      results.forEach((r, i) => {
        expect(textOf(r)).to.equal(`elicited=a${i} sampled=s${i}`);
        expect(seen[i]).to.deep.equal([`t${i}`, `t${i}`]);
      });
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});
