import { expect } from 'chai';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ROOT } from '../../helpers/contract.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { register, waitConnected } from '../../helpers/upstreams.js';

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<McpError> {
  try {
    await p;
  } catch (err) {
    return err as McpError;
  }
  throw new Error('expected a JSON-RPC error');
}

describe('Upstream JSON-RPC errors reach the caller as the upstream sent them', function () {
  this.timeout(60_000);
  let t: TestServer;
  let client: Client;
  before(async () => {
    t = await startTestServer();
    const server = await register(t.owner, {
      name: 'errors',
      transport: 'stdio',
      command: process.execPath,
      args: ['--import', 'tsx', path.join(ROOT, 'test/fixtures/error-server.ts')],
      cwd: ROOT,
      call_timeout_ms: 1500,
    });
    await waitConnected(t.owner, server.id, 2);
    const tools = (await t.owner.get(`/api/v1/servers/${server.id}/tools`)).body.items as { id: string; name: string }[];
    const bundle = await t.owner.post('/api/v1/bundles', { name: 'errors', tools: tools.map((x) => ({ tool_id: x.id })) });
    client = new Client({ name: 'errors-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp/bundle/${bundle.body.bundle_key}`)));
  });
  after(async () => {
    await client?.close();
    await t?.stop();
  });

  const CASES: [number, string, unknown][] = [
    [-32000, 'the upstream says: backend down', { retryAfter: 3 }],
    [-32001, 'the upstream says: its own backend timed out', undefined],
    [-32002, 'no such thing', { uri: 'x://y' }],
    [-32602, 'bad argument "n"', { field: 'n' }],
    [-32603, 'upstream internal error', undefined],
    [-31999, 'a server-defined error', ['a', 1]],
    [42, 'an application code', 'text data'],
  ];
  for (const [code, message, data] of CASES) {
    it(`tools/call: ${code} with its message${data === undefined ? '' : ' and data'}`, async () => {
      const err = await rejection(
        client.callTool({ name: 'fail_with', arguments: { code, message, ...(data === undefined ? {} : { data }) } }),
      );
      expect(err).to.be.instanceOf(McpError);
      expect(err.code).to.equal(code);
      expect(err.message).to.equal(`MCP error ${code}: ${message}`);
      expect(err.data).to.deep.equal(data);
    });
  }

  it('prompts/get: -32000 and -32001 from the upstream are its answers, not transport failures', async () => {
    for (const code of [-32000, -32001]) {
      const err = await rejection(client.getPrompt({ name: 'fail_with', arguments: { code: String(code), message: `prompt ${code}` } }));
      expect(err.code).to.equal(code);
      expect(err.message).to.equal(`MCP error ${code}: prompt ${code}`);
      expect(err.data).to.deep.equal({ prompt: true });
    }
  });

  it("the gateway's own timeout keeps its documented -32001 and message", async () => {
    const err = await rejection(client.callTool({ name: 'hang', arguments: {} }));
    expect(err.code).to.equal(-32001);
    expect(err.message).to.match(/did not answer in time/);
  });
});
