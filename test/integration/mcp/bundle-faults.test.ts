import { expect } from 'chai';
import { sharedServer, startTestServer, type TestServer } from '../../helpers/test-server.js';
import type { CatalogTool } from '../../../src/domain/catalog.js';
import { mcpFetch, modernRequest, RawSession, responseOf } from '../../helpers/mcp-http.js';
import { putFixtureServer, TestUpstreams } from '../../helpers/test-upstreams.js';

/** RELIABILITY.md "Faults survived": every faulty upstream gives the caller a JSON-RPC error in time. */
describe('/mcp/bundle/{bundle_key} when upstreams fail', () => {
  const CALL_TIMEOUT_MS = 300;
  let t: TestServer;
  let upstreams: TestUpstreams;
  let s: RawSession;
  let bundleId: string;

  before(async () => {
    upstreams = new TestUpstreams();
    t = await startTestServer({ start: { upstreams, mcp: { callTimeoutMs: CALL_TIMEOUT_MS }, callRecorder: { flushIntervalMs: 50 } } });
    const { tools } = putFixtureServer(
      t.server.services.catalog,
      'flaky',
      ['echo', 'die', 'hang', 'garbage', 'vanished'].map((name) => ({ name })),
    );
    const created = await t.owner.post('/api/v1/bundles', { name: 'Faults', tools: Object.values(tools).map((x) => ({ tool_id: x.id })) });
    bundleId = created.body.id;
    s = new RawSession(`${t.url}/mcp/bundle/${created.body.bundle_key}`, '2025-11-25');
    await s.initialize();
  });
  after(() => t.stop());

  /** Calls a tool and measures how long the answer took. */
  async function timedCall(name: string) {
    const started = Date.now();
    const reply = await s.call(name);
    return { reply, ms: Date.now() - started };
  }

  it('an upstream killed mid-call gives -32000 (upstream unavailable)', async () => {
    const { reply } = await timedCall('die');
    expect(reply.error.code).to.equal(-32000);
    expect(reply.error.message).to.equal('Upstream server flaky is unavailable');
  });

  it('a hanging upstream gives -32001 once the per-call timeout passes, and the upstream call is aborted', async () => {
    const { reply, ms } = await timedCall('hang');
    expect(reply.error.code).to.equal(-32001);
    expect(ms).to.be.at.least(CALL_TIMEOUT_MS - 10);
    expect(ms).to.be.below(CALL_TIMEOUT_MS + 5000); // never a hang
    expect(upstreams.calls.filter((c) => c.tool === 'hang').every((c) => c.aborted)).to.equal(true);
  });

  it('an upstream sending garbage gives -32000, never a malformed frame', async () => {
    const { reply } = await timedCall('garbage');
    expect(reply).to.deep.equal({
      jsonrpc: '2.0',
      id: reply.id,
      error: { code: -32000, message: 'Upstream server flaky sent an invalid response' },
    });
  });

  it("passes the upstream's own JSON-RPC error through", async () => {
    const { reply } = await timedCall('vanished');
    expect(reply.error).to.deep.equal({ code: -32602, message: 'Unknown tool: vanished' });
  });

  it('keeps serving other calls while faulty ones are in flight, and records every outcome', async () => {
    const replies = await Promise.all(['hang', 'echo', 'die', 'echo', 'garbage', 'echo'].map((n) => s.call(n, { n })));
    expect(replies.map((r) => r.error?.code ?? 'ok')).to.deep.equal([-32001, 'ok', -32000, 'ok', -32000, 'ok']);
    await t.server.services.callRecorder.flush();
    const rows = await t.server.services.stores.callRecords.recent({ limit: 100, bundleId });
    const byTool = (name: string) => rows.filter((r) => r.tool_name === name).map((r) => r.status);
    expect(byTool('hang')).to.include('timeout');
    expect(byTool('die')).to.include('error');
    expect(byTool('garbage')).to.include('error');
    expect(rows.find((r) => r.tool_name === 'die')!.error).to.equal('Upstream server flaky is unavailable');
  });
});

describe('/mcp/bundle/{bundle_key} before the upstream pool exists', () => {
  it('answers -32000 for every call, never a fake success', async () => {
    const t = await sharedServer();
    const { tools } = putFixtureServer(t.server.services.catalog, 'nopool', [{ name: 'echo' }]);
    const created = await t.owner.post('/api/v1/bundles', { name: 'No pool yet', tools: [{ tool_id: tools.echo!.id }] });
    const s = new RawSession(`${t.url}/mcp/bundle/${created.body.bundle_key}`, '2025-11-25');
    await s.initialize();
    const reply = await s.call('echo', { a: 1 });
    expect(reply.error.code).to.equal(-32000);
  });
});

describe('/mcp/bundle/{bundle_key} when a tool of the bundle cannot be called', () => {
  let t: TestServer;
  let upstreams: TestUpstreams;
  let serverId: string;
  let bundleId: string;
  let url: string;
  let s: RawSession;

  before(async () => {
    upstreams = new TestUpstreams();
    t = await startTestServer({ start: { upstreams, mcp: { callTimeoutMs: 2000 }, callRecorder: { flushIntervalMs: 50 } } });
    let tools: ReturnType<typeof putFixtureServer>['tools'];
    ({ serverId, tools } = putFixtureServer(
      t.server.services.catalog,
      'weather',
      ['echo', 'vanished', 'picky', 'plain'].map((name) => ({ name })),
    ));
    const created = await t.owner.post('/api/v1/bundles', {
      name: 'Renamed',
      tools: [
        { tool_id: tools.echo!.id, override: { name: 'say' } },
        { tool_id: tools.vanished!.id, override: { name: 'gone' } },
        { tool_id: tools.picky!.id, override: { name: 'check' } },
        { tool_id: tools.plain!.id },
      ],
    });
    bundleId = created.body.id;
    url = `${t.url}/mcp/bundle/${created.body.bundle_key}`;
    s = new RawSession(url, '2025-11-25');
    await s.initialize();
  });
  after(() => t.stop());

  /** Replaces the server's catalog entry with its tools changed by `edit`. */
  function editTools(edit: (tool: CatalogTool) => CatalogTool): void {
    const catalog = t.server.services.catalog;
    const state = catalog.serverState(serverId)!;
    catalog.putServer(serverId, {
      ...state,
      tools: catalog.toolsOfServer(serverId).map(edit),
      resources: catalog.resourcesOfServer(serverId),
      resourceTemplates: catalog.resourceTemplatesOfServer(serverId),
      prompts: catalog.promptsOfServer(serverId),
    });
  }

  async function listed(): Promise<string[]> {
    return responseOf(await s.request('tools/list')).result.tools.map((x: { name: string }) => x.name);
  }

  it('a server that is down: -32000 "unavailable" naming the server and the bundle name, not "Unknown tool"; nothing sent upstream', async () => {
    t.server.services.catalog.patchServer(serverId, { connected: false });
    try {
      expect(await listed()).to.deep.equal([]);
      const before = upstreams.calls.length;
      for (const name of ['say', 'plain']) {
        const reply = await s.call(name, { a: 1 });
        expect(reply.error).to.deep.equal({ code: -32000, message: `Upstream server weather of tool ${name} is unavailable` });
      }
      // The stateless revision gets the same answer.
      const { headers, body } = modernRequest('tools/call', { name: 'say', arguments: {} });
      const modern = responseOf(await mcpFetch(url, { body, headers }));
      expect(modern.error).to.deep.equal({ code: -32000, message: 'Upstream server weather of tool say is unavailable' });
      expect(upstreams.calls.length).to.equal(before);
      // Truly unknown names are still -32602.
      expect((await s.call('nope')).error).to.deep.equal({ code: -32602, message: 'Unknown tool: nope' });
    } finally {
      t.server.services.catalog.patchServer(serverId, { connected: true });
    }
    expect(await listed()).to.deep.equal(['say', 'gone', 'check', 'plain']);
  });

  it('a disabled server: -32000 saying it is disabled', async () => {
    t.server.services.catalog.patchServer(serverId, { enabled: false });
    try {
      const reply = await s.call('say');
      expect(reply.error).to.deep.equal({ code: -32000, message: 'Upstream server weather of tool say is unavailable: it is disabled' });
    } finally {
      t.server.services.catalog.patchServer(serverId, { enabled: true });
    }
  });

  it('a tool its connected upstream no longer offers: -32000 saying so, under the bundle name', async () => {
    editTools((tool) => (tool.name === 'echo' ? { ...tool, available: false } : tool));
    try {
      expect(await listed()).to.not.include('say');
      const reply = await s.call('say');
      expect(reply.error).to.deep.equal({ code: -32000, message: 'Tool say is unavailable: upstream server weather no longer offers it' });
    } finally {
      editTools((tool) => ({ ...tool, available: true }));
    }
  });

  it('a tool switched off in its server is hidden: -32602 Unknown tool', async () => {
    t.server.services.catalog.setToolsEnabled(
      [t.server.services.catalog.toolsOfServer(serverId).find((x) => x.name === 'plain')!.id],
      false,
    );
    try {
      expect((await s.call('plain')).error).to.deep.equal({ code: -32602, message: 'Unknown tool: plain' });
    } finally {
      t.server.services.catalog.setToolsEnabled(
        t.server.services.catalog.toolsOfServer(serverId).map((x) => x.id),
        true,
      );
    }
  });

  it('records calls refused for an unavailable server', async () => {
    t.server.services.catalog.patchServer(serverId, { connected: false });
    try {
      await s.call('say', { recorded: true });
    } finally {
      t.server.services.catalog.patchServer(serverId, { connected: true });
    }
    await t.server.services.callRecorder.flush();
    const rows = await t.server.services.stores.callRecords.recent({ limit: 100, bundleId });
    expect(rows.find((r) => r.error === 'Upstream server weather of tool say is unavailable')).to.include({
      tool_name: 'echo',
      status: 'error',
      server_id: serverId,
    });
  });

  it("words the upstream's errors about a renamed tool with the bundle's name, never the upstream's", async () => {
    const rejected = await s.call('gone');
    expect(rejected.error).to.deep.equal({ code: -32602, message: 'Unknown tool: gone' });
    const refused = await s.call('check', { x: 1 });
    expect(refused.result.isError).to.equal(true);
    expect(refused.result.content[0].text).to.equal(
      'MCP error -32602: Input validation error: Invalid arguments for tool check: expected string',
    );
    expect(JSON.stringify([rejected, refused])).to.not.match(/vanished|picky/);
    // A tool that keeps its upstream name is quoted as is.
    expect((await s.call('plain')).result.isError ?? false).to.equal(false);
  });
});
