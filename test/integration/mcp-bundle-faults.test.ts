import { expect } from 'chai';
import { sharedServer, startTestServer, type TestServer } from '../helpers/test-server.js';
import { RawSession } from '../helpers/mcp-http.js';
import { putFixtureServer, TestUpstreams } from '../helpers/test-upstreams.js';

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
