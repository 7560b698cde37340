import { expect } from 'chai';
import { UpstreamError } from '../../../../src/domain/upstream-call.js';
import { ApiClient } from '../../../helpers/api-client.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { descendantPids, fixtureStdio, register, waitConnected, waitFor } from '../../../helpers/upstreams.js';

/** Command-line marker of fixture processes run over stdio. */
const MARK = 'fixture-mcp-server.ts stdio';

describe('upstream processes: one per server, ended by disable, delete and shutdown', function () {
  this.timeout(120000);
  let t: TestServer | undefined;
  let dataDir: string;
  let schema: string | undefined;
  let t0Key = '';

  /** Fixture processes started (directly or not) by this test process. */
  const running = () => descendantPids(MARK).length;
  /**
   * Waits until exactly `n` fixture processes run: after a sync the capability probe lists the tools
   * over short-lived processes of its own (src/upstream/capability-probe.ts), so the count is
   * judged once they have ended; a second long-lived process per server never settles.
   */
  const settlesAt = (n: number) => waitFor(`${n} fixture processes`, () => running() === n, 20_000);
  const baseline = { count: 0 };

  before(async () => {
    baseline.count = running();
    t = await startTestServer({ keepData: true });
    dataDir = t.config.dataDir;
    t0Key = t.ownerKey;
    schema = t.config.databaseSchema;
  });
  after(async () => {
    await t?.stop();
  });

  let a: any;
  let b: any;

  it('starts exactly one process per stdio server, however many calls share it', async () => {
    a = await register(t!.owner, { name: 'life-a', transport: 'stdio', ...fixtureStdio() });
    b = await register(t!.owner, { name: 'life-b', transport: 'stdio', ...fixtureStdio() });
    await waitConnected(t!.owner, a.id);
    await waitConnected(t!.owner, b.id);
    const pool = t!.server.services.pool;
    await Promise.all(Array.from({ length: 30 }, (_, i) => pool.callTool(i % 2 ? a.id : b.id, 'echo', { text: String(i) })));
    await settlesAt(baseline.count + 2);
    expect(pool.state(a.id)?.pid).to.be.a('number');
    expect(descendantPids(MARK)).to.include(pool.state(a.id)!.pid!);
  });

  it('POST /disable ends the process; the tools become unavailable everywhere; calls fail with unavailable', async () => {
    const res = await t!.owner.post(`/api/v1/servers/${a.id}/disable`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'disabled', enabled: false });
    await settlesAt(baseline.count + 1);
    const catalog = t!.server.services.catalog;
    expect(catalog.serverState(a.id)).to.deep.equal({ name: 'life-a', enabled: false, connected: false });
    expect(catalog.toolsOfServer(a.id).length).to.be.greaterThan(0);
    for (const tool of catalog.toolsOfServer(a.id)) expect(tool.available).to.equal(false);
    const tools = (await t!.owner.get(`/api/v1/servers/${a.id}/tools?page_size=100`)).body.items;
    for (const tool of tools) expect(tool.available).to.equal(false);
    try {
      await t!.server.services.upstreams.callTool(a.id, 'echo', { text: 'x' });
      expect.fail('call to a disabled server succeeded');
    } catch (err) {
      expect(err).to.be.instanceOf(UpstreamError);
      expect((err as UpstreamError).kind).to.equal('unavailable');
    }
    const again = await t!.owner.post(`/api/v1/servers/${a.id}/disable`);
    expect(again.status).to.equal(200);
  });

  it('POST /enable starts it again with the same tool ids', async () => {
    const ids = t!.server.services.catalog
      .toolsOfServer(a.id)
      .map((x) => x.id)
      .sort();
    const res = await t!.owner.post(`/api/v1/servers/${a.id}/enable`);
    expect(res.status).to.equal(200);
    expect(res.body.status).to.be.oneOf(['connecting', 'connected']);
    await waitConnected(t!.owner, a.id);
    await settlesAt(baseline.count + 2);
    const catalog = t!.server.services.catalog;
    await waitFor('tools available again', () => catalog.toolsOfServer(a.id).every((x) => x.available));
    expect(
      catalog
        .toolsOfServer(a.id)
        .map((x) => x.id)
        .sort(),
    ).to.deep.equal(ids);
  });

  it('DELETE ends the process and removes the server’s tools from the catalog', async () => {
    const toolId = t!.server.services.catalog.toolsOfServer(b.id)[0]!.id;
    expect((await t!.owner.delete(`/api/v1/servers/${b.id}`)).status).to.equal(204);
    await settlesAt(baseline.count + 1);
    expect(t!.server.services.catalog.tool(toolId)).to.equal(undefined);
    expect(t!.server.services.catalog.serverState(b.id)).to.equal(undefined);
    const rows = await t!.server.services.db.knex('mcp_tools').where({ server_id: b.id });
    expect(rows).to.have.length(0);
  });

  it('shutdown ends every process; a restart serves the catalog from the database at once and reconnects in the background', async () => {
    const ids = t!.server.services.catalog
      .toolsOfServer(a.id)
      .map((x) => `${x.name}:${x.id}`)
      .sort();
    await t!.stop();
    t = undefined;
    await settlesAt(baseline.count);

    const ownerKey = t0Key;
    t = await startTestServer({ reuse: { dataDir, schema } });
    const owner = new ApiClient(t.url, ownerKey);
    const catalog = t.server.services.catalog;
    // Filled before the first request, before the upstream has even started.
    expect(
      catalog
        .toolsOfServer(a.id)
        .map((x) => `${x.name}:${x.id}`)
        .sort(),
    ).to.deep.equal(ids);
    const s = await waitConnected(owner, a.id);
    expect(s.status).to.equal('connected');
    await settlesAt(baseline.count + 1);
    await waitFor('catalog marked connected', () => catalog.serverState(a.id)?.connected === true);
    expect(
      catalog
        .toolsOfServer(a.id)
        .map((x) => `${x.name}:${x.id}`)
        .sort(),
    ).to.deep.equal(ids);
  });
});
