import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { setupFixtureBundle, type FixtureBundle } from '../../helpers/fixture-bundle.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/upstreams.js';

/**
 * The whole path with nothing faked: a real upstream process registered through the REST API,
 * connected by the pool, synced into the catalog, curated into a bundle with overrides, and
 * called by the MCP SDK client through /mcp/bundle/{bundle_key}.
 */
describe('/mcp/bundle/{bundle_key} in front of a real upstream (registry + pool)', function () {
  this.timeout(120000);
  let t: TestServer;
  let fixture: FixtureBundle;
  let client: Client;

  before(async () => {
    t = await startTestServer();
    fixture = await setupFixtureBundle(t.owner, t.url, {
      tools: ['echo', 'echo_args', 'sleep', 'test_tool_with_progress', 'test_error_handling'],
      overrides: {
        echo_args: { name: 'lookup', description: 'Looks things up', defaults: { limit: 10 }, pinned: { mode: 'safe' } },
        echo: { title: 'Say it back' },
      },
    });
    client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(fixture.endpoint)));
  });
  after(async () => {
    await client?.close();
    await t?.stop();
  });

  it('lists the bundle tools in display order with overrides applied', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).to.deep.equal(['echo', 'lookup', 'sleep', 'test_tool_with_progress', 'test_error_handling']);
    const lookup = tools.find((x) => x.name === 'lookup')!;
    expect(lookup.description).to.equal('Looks things up');
    const props = (lookup.inputSchema as { properties?: Record<string, unknown> }).properties ?? {};
    expect(props).to.not.have.property('mode');
    expect(props).to.have.property('limit');
    expect(tools.find((x) => x.name === 'echo')!.title).to.equal('Say it back');
  });

  it('calls a renamed tool by its new name; the upstream gets its real name, defaults merged, pinned enforced', async () => {
    const first = await client.callTool({ name: 'lookup', arguments: { text: 'hi' } });
    expect(first.isError ?? false).to.equal(false);
    expect(first.structuredContent).to.deep.equal({ received: { text: 'hi', limit: 10, mode: 'safe' } });
    const second = await client.callTool({ name: 'lookup', arguments: { text: 'hi', limit: 3 } });
    expect(second.structuredContent).to.deep.equal({ received: { text: 'hi', limit: 3, mode: 'safe' } });
  });

  it('refuses a caller that tries to set a pinned argument, without calling upstream', async () => {
    const res = await client.callTool({ name: 'lookup', arguments: { text: 'x', mode: 'unsafe' } });
    expect(res.isError).to.equal(true);
  });

  it('does not serve the upstream name of a renamed tool, nor tools outside the bundle', async () => {
    for (const name of ['echo_args', 'crash']) {
      const err = await client.callTool({ name, arguments: {} }).then(
        () => undefined,
        (e: unknown) => e as { code?: number },
      );
      expect(err?.code, name).to.equal(-32602);
    }
  });

  it('passes every upstream progress notification through to the caller, in order', async () => {
    const seen: number[] = [];
    const res = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, CallToolResultSchema, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(res.isError ?? false).to.equal(false);
    // All three, including the last one that arrives together with the result.
    expect(seen).to.deep.equal([0, 50, 100]);
  });

  it('turns an upstream tool failure into an isError result', async () => {
    const res = await client.callTool({ name: 'test_error_handling', arguments: {} });
    expect(res.isError).to.equal(true);
  });

  it('records each call for the dashboard', async () => {
    await client.callTool({ name: 'echo', arguments: { text: 'recorded' } });
    await t.server.services.callRecorder.flush();
    const rows = await t.server.services.db.knex('call_records').where({ bundle_id: fixture.bundleId }).select('tool_name', 'status');
    expect(rows.map((r: { tool_name: string }) => r.tool_name)).to.include('echo');
  });

  it("words the real upstream's refusal of a renamed tool's arguments with the bundle's name", async () => {
    const outcome = await client.callTool({ name: 'lookup', arguments: { text: 42 } }).then(
      (r) => r,
      (e: unknown) => ({ code: (e as { code?: number }).code, message: (e as Error).message }),
    );
    const text = JSON.stringify(outcome);
    expect(text).to.match(/Invalid arguments for tool lookup/);
    expect(text).to.not.include('echo_args');
  });

  it('answers -32000 "unavailable: it is disabled" (not Unknown tool) while the server is disabled, and serves again once enabled', async () => {
    const disabled = await t.owner.post(`/api/v1/servers/${fixture.serverId}/disable`);
    expect(disabled.status).to.equal(200);
    const err = await client.callTool({ name: 'lookup', arguments: { text: 'x' } }).then(
      () => undefined,
      (e: unknown) => e as { code?: number; message?: string },
    );
    expect(err?.code).to.equal(-32000);
    expect(err?.message).to.match(/Upstream server \S+ of tool lookup is unavailable: it is disabled/);
    expect((await t.owner.post(`/api/v1/servers/${fixture.serverId}/enable`)).status).to.equal(200);
    const pool = t.server.services.pool;
    await waitFor('upstream enabled again', () => pool.state(fixture.serverId)?.status === 'connected', 30000);
    const again = await client.callTool({ name: 'lookup', arguments: { text: 'back' } });
    expect(again.isError ?? false).to.equal(false);
  });

  it('answers an in-flight call with a JSON-RPC error when the upstream process is killed, and recovers', async () => {
    const pool = t.server.services.pool;
    const pid = pool.state(fixture.serverId)?.pid;
    expect(pid).to.be.a('number');
    const started = Date.now();
    const call = client.callTool({ name: 'sleep', arguments: { ms: 20000 } }).then(
      () => 'answered',
      (e: unknown) => e as { code?: number; message?: string },
    );
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid!, 'SIGKILL');
    const outcome = await call;
    expect(outcome).to.not.equal('answered');
    expect((outcome as { code?: number }).code).to.be.a('number');
    expect(Date.now() - started).to.be.lessThan(10000);
    await waitFor(
      'upstream back',
      () => pool.state(fixture.serverId)?.status === 'connected' && pool.state(fixture.serverId)?.pid !== pid,
      30000,
    );
    const again = await client.callTool({ name: 'echo', arguments: { text: 'back' } });
    expect(again.content).to.deep.equal([{ type: 'text', text: 'back' }]);
  });
});
