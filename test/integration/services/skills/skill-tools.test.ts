import { expect } from 'chai';
import { UpstreamError } from '../../../../src/domain/upstream-call.js';
import { setupFixtureBundle, type FixtureBundle } from '../../../helpers/fixture-bundle.js';
import { createUser } from '../../../helpers/identity.js';
import { mcpFetch, modernRequest, RawSession, responseOf } from '../../../helpers/mcp-http.js';
import { createSkill, exampleSkill, scriptSkill } from '../../../helpers/skills.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { waitFor } from '../../../helpers/upstreams.js';

async function toolsOf(t: TestServer, serverId: string): Promise<Record<string, any>> {
  const res = await t.owner.get(`/api/v1/servers/${serverId}/tools?page_size=100`);
  return Object.fromEntries((res.body.items as { name: string }[]).map((x) => [x.name, x]));
}

async function listNames(session: RawSession): Promise<string[]> {
  return (responseOf(await session.request('tools/list')).result.tools as { name: string }[]).map((x) => x.name);
}

describe('Skills attached to servers (script tools)', function () {
  this.timeout(120000);
  let t: TestServer;
  let fx: FixtureBundle;
  let stats: any;

  before(async () => {
    t = await startTestServer();
    fx = await setupFixtureBundle(t.owner, t.url, { tools: ['echo'] });
    stats = await createSkill(t.owner, exampleSkill('text-stats'));
  });
  after(async () => t?.stop());

  it('the example skill parses: two script tools declared in workflow.yaml', () => {
    expect(stats.workflow.tools.map((x: { name: string }) => x.name)).to.deep.equal(['word_stats', 'letter_histogram']);
    expect(stats.frontmatter.license).to.equal('MIT');
  });

  it('POST /attach registers the workflow tools as tools of the server, in the catalog', async () => {
    const res = await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${stats.id}/attach`);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ server_id: fx.serverId, skill_id: stats.id, tools_registered: ['word_stats', 'letter_histogram'] });
    const tools = await toolsOf(t, fx.serverId);
    expect(tools.word_stats).to.deep.include({
      available: true,
      enabled: true,
      title: 'Word statistics',
      annotations: { readOnlyHint: true },
    });
    expect(tools.word_stats.input_schema.required).to.deep.equal(['text']);
    expect(tools.echo).to.not.equal(undefined);
    const all = await t.owner.get(`/api/v1/tools?search=histogram`);
    expect(all.body.items.map((x: { name: string }) => x.name)).to.deep.equal(['letter_histogram']);
  });

  it('answers 409 for a second attach and for a tool name the server already has, 404 for unknown ids', async () => {
    const again = await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${stats.id}/attach`);
    expect(again.status).to.equal(409);
    expect(again.body.code).to.equal('skill_already_attached');
    const clash = await createSkill(t.owner, scriptSkill('clashing', { echo: ['javascript', 'e.js', 'export const main = () => 1;'] }));
    const res = await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${clash.id}/attach`);
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('tool_name_taken');
    expect(await t.server.services.db.knex('skill_attachments').where({ skill_id: clash.id })).to.have.length(0);
    const none = '00000000-0000-4000-8000-000000000000';
    expect((await t.owner.post(`/api/v1/servers/${none}/skills/${stats.id}/attach`)).status).to.equal(404);
    expect((await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${none}/attach`)).status).to.equal(404);
  });

  it('is refused to members', async () => {
    const member = await createUser(t, 'member');
    expect((await member.client.post(`/api/v1/servers/${fx.serverId}/skills/${stats.id}/attach`)).status).to.equal(403);
    expect((await member.client.delete(`/api/v1/servers/${fx.serverId}/skills/${stats.id}`)).status).to.equal(403);
  });

  it('script tools go into bundles and are called through /mcp/bundle like any tool (JavaScript and Python)', async () => {
    const tools = await toolsOf(t, fx.serverId);
    const added = await t.owner.post(`/api/v1/bundles/${fx.bundleId}/tools`, {
      tools: [{ tool_id: tools.word_stats.id }, { tool_id: tools.letter_histogram.id, override: { name: 'letters' } }],
    });
    expect(added.status).to.equal(200);
    const session = new RawSession(fx.endpoint, '2025-11-25');
    await session.initialize();
    const listed = responseOf(await session.request('tools/list')).result.tools;
    const ws = listed.find((x: { name: string }) => x.name === 'word_stats');
    expect(ws._meta['io.toolgate/skill']).to.deep.include({ skill_id: stats.id, skill_name: 'text-stats', language: 'javascript' });
    const words = await session.call('word_stats', { text: 'the cat and the hat\nthe end', top: 2 });
    expect(words.result.isError).to.not.equal(true);
    expect(words.result.structuredContent).to.deep.equal({
      words: 7,
      lines: 2,
      characters: 27,
      frequent: [
        { word: 'the', count: 3 },
        { word: 'and', count: 1 },
      ],
    });
    const letters = await session.call('letters', { text: 'Abba!' });
    expect(letters.result.isError, JSON.stringify(letters.result)).to.not.equal(true);
    expect(letters.result.structuredContent).to.deep.equal({ letters: { a: 2, b: 2 }, total: 4 });
    // Modern (stateless) clients reach the same tool.
    const { headers, body } = modernRequest('tools/call', { name: 'word_stats', arguments: { text: 'one two' } });
    const modern = responseOf(await mcpFetch(fx.endpoint, { headers, body }));
    expect(modern.result.structuredContent.words).to.equal(2);
    // Calls are recorded like upstream calls.
    await waitFor(
      'call records',
      async () => (await t.server.services.db.knex('call_records').where({ tool_name: 'word_stats', status: 'ok' })).length >= 2,
    );
  });

  it('a script tool that throws is an isError result, not a protocol error', async () => {
    const failing = await createSkill(
      t.owner,
      scriptSkill('failing', { fails: ['javascript', 'f.js', 'export function main() { throw new Error("boom"); }'] }),
    );
    await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${failing.id}/attach`);
    const tools = await toolsOf(t, fx.serverId);
    await t.owner.post(`/api/v1/bundles/${fx.bundleId}/tools`, { tools: [{ tool_id: tools.fails.id }] });
    const session = new RawSession(fx.endpoint, '2025-11-25');
    await session.initialize();
    const res = await session.call('fails', {});
    expect(res.result.isError).to.equal(true);
    expect(res.result.content[0].text).to.match(/boom/);
  });

  it('PATCH of the skill re-registers its tools: a dropped tool leaves the server and every bundle', async () => {
    const workflow = stats.files.find((f: { path: string }) => f.path === 'workflow.yaml').content as string;
    const onlyWords = workflow.slice(0, workflow.indexOf('  - name: letter_histogram'));
    const files = stats.files.map((f: { path: string; content: string }) =>
      f.path === 'workflow.yaml' ? { ...f, content: onlyWords } : f,
    );
    const before = await toolsOf(t, fx.serverId);
    const res = await t.owner.patch(`/api/v1/skills/${stats.id}`, { files });
    expect(res.status).to.equal(200);
    const after = await toolsOf(t, fx.serverId);
    expect(after.letter_histogram).to.equal(undefined);
    expect(after.word_stats.id).to.equal(before.word_stats.id);
    const bundle = await t.owner.get(`/api/v1/bundles/${fx.bundleId}`);
    expect(bundle.body.tools.map((x: { name: string }) => x.name)).to.not.include('letter_histogram');
    const session = new RawSession(fx.endpoint, '2025-11-25');
    await session.initialize();
    expect(await listNames(session))
      .to.include('word_stats')
      .and.not.include('letters');
  });

  it('DELETE /servers/{id}/skills/{skill_id} detaches: the tools leave the catalog, the bundle and tools/list', async () => {
    const res = await t.owner.delete(`/api/v1/servers/${fx.serverId}/skills/${stats.id}`);
    expect(res.status).to.equal(204);
    expect((await toolsOf(t, fx.serverId)).word_stats).to.equal(undefined);
    const bundle = await t.owner.get(`/api/v1/bundles/${fx.bundleId}`);
    expect(bundle.body.tools.map((x: { name: string }) => x.name)).to.deep.equal(['echo', 'fails']);
    const session = new RawSession(fx.endpoint, '2025-11-25');
    await session.initialize();
    expect(await listNames(session)).to.deep.equal(['echo', 'fails']);
    const gone = await session.request('tools/call', { name: 'word_stats', arguments: { text: 'x' } });
    expect(responseOf(gone).error.code).to.equal(-32602);
    expect((await t.owner.delete(`/api/v1/servers/${fx.serverId}/skills/${stats.id}`)).status).to.equal(404);
  });

  it('deleting an attached skill removes its tools everywhere', async () => {
    const skill = await createSkill(
      t.owner,
      scriptSkill('short-lived', { ephemeral: ['javascript', 'x.js', 'export default () => "hi";'] }),
    );
    await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${skill.id}/attach`);
    expect((await toolsOf(t, fx.serverId)).ephemeral).to.not.equal(undefined);
    expect((await t.owner.delete(`/api/v1/skills/${skill.id}`)).status).to.equal(204);
    expect((await toolsOf(t, fx.serverId)).ephemeral).to.equal(undefined);
    expect(await t.server.services.db.knex('skill_attachments').where({ skill_id: skill.id })).to.have.length(0);
  });

  it('script tools survive a catalog re-sync of the upstream (the upstream does not own them)', async () => {
    const skill = await createSkill(
      t.owner,
      scriptSkill('resync', { stays: ['javascript', 's.js', 'export default () => "still here";'] }),
    );
    await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${skill.id}/attach`);
    expect((await t.owner.post(`/api/v1/servers/${fx.serverId}/refresh`)).status).to.equal(200);
    const tools = await toolsOf(t, fx.serverId);
    expect(tools.stays).to.deep.include({ available: true });
  });

  it('deleting the server takes its script tools along the same path as its upstream tools: out of every bundle, the catalog and the sandbox', async () => {
    const host = await setupFixtureBundle(t.owner, t.url, { name: 'doomed-host', tools: ['echo'] });
    const skill = await createSkill(
      t.owner,
      scriptSkill('hosted', { hosted_tool: ['javascript', 'h.js', 'export default () => "hosted";'] }),
    );
    expect((await t.owner.post(`/api/v1/servers/${host.serverId}/skills/${skill.id}/attach`)).status).to.equal(200);
    const scriptToolId = (await toolsOf(t, host.serverId)).hosted_tool.id as string;
    // In the host's own bundle (beside its upstream tool) and in another server's bundle.
    for (const bundleId of [host.bundleId, fx.bundleId])
      expect((await t.owner.post(`/api/v1/bundles/${bundleId}/tools`, { tools: [{ tool_id: scriptToolId }] })).status).to.equal(200);
    const session = new RawSession(fx.endpoint, '2025-11-25');
    await session.initialize();
    expect(await listNames(session)).to.include('hosted_tool');
    expect((await session.call('hosted_tool', {})).result.content[0].text).to.equal('hosted');
    const { upstreams, db } = t.server.services;
    expect((await upstreams.callTool(host.serverId, 'hosted_tool', {})).content).to.deep.equal([{ type: 'text', text: 'hosted' }]);

    expect((await t.owner.delete(`/api/v1/servers/${host.serverId}`)).status).to.equal(204);

    expect(await db.knex('bundle_tools').where({ tool_id: scriptToolId })).to.have.length(0);
    expect(await db.knex('mcp_tools').where({ server_id: host.serverId })).to.have.length(0);
    expect(await db.knex('skill_attachments').where({ skill_id: skill.id })).to.have.length(0);
    expect((await t.owner.get(`/api/v1/bundles/${host.bundleId}`)).body.tools).to.deep.equal([]);
    const shared = await t.owner.get(`/api/v1/bundles/${fx.bundleId}`);
    expect(shared.body.tools.map((x: { tool_id: string }) => x.tool_id))
      .to.include(fx.toolIds.echo)
      .and.not.include(scriptToolId);
    expect(await listNames(session)).to.not.include('hosted_tool');
    expect(responseOf(await session.request('tools/call', { name: 'hosted_tool', arguments: {} })).error.code).to.equal(-32602);
    // The sandbox forgot the server's script tools: the caller no longer runs the script.
    let refused: unknown;
    await upstreams.callTool(host.serverId, 'hosted_tool', {}).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(UpstreamError);
    // The skill stays in the library and can be attached elsewhere.
    expect((await t.owner.get(`/api/v1/skills/${skill.id}`)).status).to.equal(200);
  });
});

describe('Skills attached on a host without a process sandbox', function () {
  this.timeout(120000);
  let t: TestServer;
  let fx: FixtureBundle;

  before(async () => {
    t = await startTestServer({ env: { TOOLGATE_PROCESS_SANDBOX: 'off' } });
    fx = await setupFixtureBundle(t.owner, t.url, { tools: ['echo'] });
  });
  after(async () => t?.stop());

  it('refuses to attach a skill with Python tools (501 sandbox_unavailable) and registers nothing', async () => {
    const skill = await createSkill(t.owner, exampleSkill('text-stats'));
    const res = await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${skill.id}/attach`);
    expect(res.status).to.equal(501);
    expect(res.body.code).to.equal('sandbox_unavailable');
    expect(res.body.detail).to.match(/python/);
    expect((await toolsOf(t, fx.serverId)).word_stats).to.equal(undefined);
  });

  it('still attaches JavaScript-only skills (QuickJS needs no host sandbox)', async () => {
    const skill = await createSkill(t.owner, scriptSkill('js-only', { js_tool: ['javascript', 'a.js', 'export default () => 42;'] }));
    const res = await t.owner.post(`/api/v1/servers/${fx.serverId}/skills/${skill.id}/attach`);
    expect(res.status).to.equal(200);
    expect(res.body.tools_registered).to.deep.equal(['js_tool']);
  });
});
