import { expect } from 'chai';
import { setupFixtureBundle, type FixtureBundle } from '../../../helpers/fixture-bundle.js';
import { mcpFetch, RawSession, responseOf } from '../../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';

/** Reads an SSE body until `needle` appears (or the stream ends); resolves to everything read. */
function streamReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  let text = '';
  return async (needle: string): Promise<string> => {
    while (!text.includes(needle)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    return text;
  };
}

describe('DELETE /api/v1/servers/{server_id} and the bundles that use its tools', function () {
  this.timeout(90000);
  let t: TestServer;
  /** Server A's tools in a bundle of their own. */
  let onlyA: FixtureBundle;
  /** Server B's tools in a bundle of their own. */
  let onlyB: FixtureBundle;
  /** A bundle holding tools of both servers. */
  let mixed: { id: string; key: string; updatedAt: string };

  before(async () => {
    t = await startTestServer();
    onlyA = await setupFixtureBundle(t.owner, t.url, { name: 'server-a', tools: ['echo', 'sleep'] });
    onlyB = await setupFixtureBundle(t.owner, t.url, { name: 'server-b', tools: ['echo'] });
    const created = await t.owner.post('/api/v1/bundles', {
      name: 'mixed',
      tools: [
        { tool_id: onlyA.toolIds.echo, display_order: 0, override: { name: 'a_echo' } },
        { tool_id: onlyB.toolIds.echo, display_order: 1, override: { name: 'b_echo' } },
      ],
    });
    expect(created.status).to.equal(201);
    mixed = { id: created.body.id, key: created.body.bundle_key, updatedAt: created.body.updated_at };
  });
  after(async () => {
    await t?.stop();
  });

  const bundleToolRows = (serverId: string) =>
    t.server.services.db.knex('bundle_tools').where({ server_id: serverId }).select('bundle_id', 'tool_id');

  it('changes nothing when the deletion fails part-way (one transaction)', async () => {
    const knex = t.server.services.db.knex;
    // A trigger makes the last statement of the deletion (the server row) fail after the bundle rows went.
    await knex.raw(`create or replace function tg_test_refuse_delete() returns trigger language plpgsql as $$
      begin raise exception 'refused by test trigger'; end $$`);
    await knex.raw('create trigger tg_test_refuse before delete on mcp_servers for each row execute function tg_test_refuse_delete()');
    try {
      const before = await bundleToolRows(onlyA.serverId);
      expect(before).to.have.length(3);
      const res = await t.owner.delete(`/api/v1/servers/${onlyA.serverId}`);
      expect(res.status).to.equal(500);
      expect(res.body.code).to.equal('internal_error');
      expect(await bundleToolRows(onlyA.serverId)).to.have.deep.members(before);
      expect((await t.owner.get(`/api/v1/servers/${onlyA.serverId}`)).status).to.equal(200);
      expect((await t.owner.get(`/api/v1/bundles/${mixed.id}`)).body.tools).to.have.length(2);
    } finally {
      await knex.raw('drop trigger tg_test_refuse on mcp_servers');
      await knex.raw('drop function tg_test_refuse_delete()');
    }
  });

  it('removes the server’s tools from every bundle, keeps the others, and tells connected sessions list_changed', async () => {
    const endpoint = `${t.url}/mcp/bundle/${mixed.key}`;
    const session = new RawSession(endpoint, '2025-11-25');
    await session.initialize();
    const names = async () =>
      (responseOf(await session.request('tools/list')).result.tools as { name: string }[]).map((x) => x.name).sort();
    expect(await names()).to.deep.equal(['a_echo', 'b_echo']);
    const controller = new AbortController();
    const stream = await fetch(endpoint, { headers: { accept: 'text/event-stream', ...session.headers() }, signal: controller.signal });
    expect(stream.status).to.equal(200);
    const readUntil = streamReader(stream.body!);
    await readUntil('stream open');

    const res = await t.owner.delete(`/api/v1/servers/${onlyA.serverId}`);
    expect(res.status).to.equal(204);

    expect(await readUntil('list_changed')).to.include('"method":"notifications/tools/list_changed"');
    controller.abort();
    expect(await names()).to.deep.equal(['b_echo']);
    expect(await bundleToolRows(onlyA.serverId)).to.deep.equal([]);

    const mixedNow = await t.owner.get(`/api/v1/bundles/${mixed.id}`);
    expect(mixedNow.status).to.equal(200);
    expect(mixedNow.body.tools.map((x: { tool_id: string }) => x.tool_id)).to.deep.equal([onlyB.toolIds.echo]);
    expect(mixedNow.body.tool_count).to.equal(1);
    expect(Date.parse(mixedNow.body.updated_at)).to.be.greaterThan(Date.parse(mixed.updatedAt));
    const aNow = await t.owner.get(`/api/v1/bundles/${onlyA.bundleId}`);
    expect(aNow.body.tools).to.deep.equal([]);
    const bNow = await t.owner.get(`/api/v1/bundles/${onlyB.bundleId}`);
    expect(bNow.body.tools.map((x: { tool_id: string }) => x.tool_id)).to.deep.equal([onlyB.toolIds.echo]);

    // The server and its catalog are gone; a call to the removed tool names a tool the bundle no longer has.
    expect((await t.owner.get(`/api/v1/servers/${onlyA.serverId}`)).status).to.equal(404);
    expect((await t.owner.get(`/api/v1/tools?server_id=${onlyA.serverId}`)).body.total).to.equal(0);
    expect(t.server.services.catalog.serverState(onlyA.serverId)).to.equal(undefined);
    const call = await session.call('a_echo', { text: 'x' });
    expect(Boolean(call.error ?? call.result?.isError), JSON.stringify(call)).to.equal(true);
    expect(
      responseOf(await mcpFetch(endpoint, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: session.headers() })).result,
    ).to.deep.equal({});
  });

  it('answers 404 for an unknown server and changes nothing', async () => {
    const before = await t.server.services.db.knex('bundle_tools').count<{ count: string }[]>({ count: '*' });
    const res = await t.owner.delete('/api/v1/servers/00000000-0000-4000-8000-000000000000');
    expect(res.status).to.equal(404);
    expect(res.body.code).to.equal('server_not_found');
    expect(await t.server.services.db.knex('bundle_tools').count<{ count: string }[]>({ count: '*' })).to.deep.equal(before);
  });
});
