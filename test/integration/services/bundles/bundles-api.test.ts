import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { hashBundleKey } from '../../../../src/live/bundles-registry.js';
import { startTestServer, capturedLogs, type TestServer } from '../../../helpers/test-server.js';
import { putFixtureServer, schema, TestUpstreams } from '../../../helpers/test-upstreams.js';

describe('Bundles REST API', () => {
  let t: TestServer;
  let tools: ReturnType<typeof putFixtureServer>['tools'];
  let otherTools: ReturnType<typeof putFixtureServer>['tools'];
  let seq = 0;
  const uniqueName = (base = 'Bundle') => `${base} ${++seq} ${randomUUID().slice(0, 8)}`;

  before(async () => {
    t = await startTestServer({ start: { upstreams: new TestUpstreams() } });
    ({ tools } = putFixtureServer(t.server.services.catalog, 'github', [
      {
        name: 'create_issue',
        inputSchema: schema({ title: { type: 'string' }, repo: { type: 'string' }, label: { type: 'string' } }, ['title', 'repo']),
      },
      { name: 'list_issues', inputSchema: schema({ repo: { type: 'string' } }) },
      { name: 'echo' },
    ]));
    ({ tools: otherTools } = putFixtureServer(t.server.services.catalog, 'jira', [{ name: 'create_issue' }, { name: 'search' }]));
  });
  after(() => t.stop());

  const create = (body: Record<string, unknown>) => t.owner.post('/api/v1/bundles', body);

  describe('POST /api/v1/bundles', () => {
    it('creates a bundle with tools and returns its key and endpoint (201)', async () => {
      const agentId = randomUUID();
      const res = await create({
        name: uniqueName('Support'),
        description: 'Tools for support',
        agent_id: agentId,
        tools: [
          { tool_id: tools.create_issue!.id, override: { name: 'file_bug', pinned: { repo: 'acme/app' } } },
          { tool_id: tools.list_issues!.id },
        ],
      });
      expect(res.status).to.equal(201);
      expect(res.body.bundle_key).to.match(/^tg_bdl_[A-Za-z0-9_-]{43}$/);
      expect(res.body.mcp_endpoint).to.equal(`${t.url}/mcp/bundle/${res.body.bundle_key}`);
      expect(res.body).to.include({ agent_id: agentId, tool_count: 2, description: 'Tools for support' });
      expect(res.body.created_by).to.be.a('string');
      // Stored as a hash for lookup and sealed, never in clear.
      const row = await t.server.services.db.knex('bundles').where({ id: res.body.id }).first();
      expect(row.key_hash).to.equal(hashBundleKey(res.body.bundle_key));
      expect(row.key_sealed).to.not.include(res.body.bundle_key);
      expect(t.server.services.secrets.open(row.key_sealed)).to.equal(res.body.bundle_key);
      expect(capturedLogs.join('')).to.not.include(res.body.bundle_key);
    });

    it('answers 409 when agent_id is taken', async () => {
      const agentId = randomUUID();
      expect((await create({ name: uniqueName(), agent_id: agentId })).status).to.equal(201);
      const res = await create({ name: uniqueName(), agent_id: agentId });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('agent_id_taken');
    });

    it('answers 409 when the name is taken (case-insensitive)', async () => {
      const name = uniqueName('Dup');
      expect((await create({ name })).status).to.equal(201);
      const res = await create({ name: name.toUpperCase() });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('name_taken');
    });

    it('answers 409 when two tools would share a name, and creates nothing', async () => {
      const name = uniqueName();
      const res = await create({ name, tools: [{ tool_id: tools.create_issue!.id }, { tool_id: otherTools.create_issue!.id }] });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('tool_name_taken');
      const list = await t.owner.get(`/api/v1/bundles?search=${encodeURIComponent(name)}`);
      expect(list.body.total).to.equal(0);
    });

    it('accepts two same-named tools once an override renames one', async () => {
      const res = await create({
        name: uniqueName(),
        tools: [{ tool_id: tools.create_issue!.id }, { tool_id: otherTools.create_issue!.id, override: { name: 'jira_create_issue' } }],
      });
      expect(res.status).to.equal(201);
    });

    it('answers 400 for a tool that is not in the catalog, and for a tool listed twice', async () => {
      const unknown = await create({ name: uniqueName(), tools: [{ tool_id: randomUUID() }] });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.code).to.equal('unknown_tool');
      const twice = await create({ name: uniqueName(), tools: [{ tool_id: tools.echo!.id }, { tool_id: tools.echo!.id }] });
      expect(twice.status).to.equal(400);
      expect(twice.body.code).to.equal('duplicate_tool');
    });

    it('answers 422 for an invalid override name and for pinned keys that are not arguments', async () => {
      const badName = await create({ name: uniqueName(), tools: [{ tool_id: tools.echo!.id, override: { name: 'has space' } }] });
      expect(badName.status).to.equal(422);
      const badPin = await create({ name: uniqueName(), tools: [{ tool_id: tools.create_issue!.id, override: { pinned: { nope: 1 } } }] });
      expect(badPin.status).to.equal(422);
      expect(badPin.body.detail[0].loc).to.deep.equal(['body', 'tools', 0, 'override', 'pinned', 'nope']);
    });

    it('answers 401 without a credential', async () => {
      expect((await t.anon.post('/api/v1/bundles', { name: 'x' })).status).to.equal(401);
    });
  });

  describe('GET /api/v1/bundles', () => {
    it('lists bundles by name with paging and a case-insensitive search', async () => {
      const tag = randomUUID().slice(0, 8);
      for (const n of ['b', 'a', 'c']) expect((await create({ name: `List ${tag} ${n}` })).status).to.equal(201);
      const page1 = await t.owner.get(`/api/v1/bundles?search=${tag.toUpperCase()}&page_size=2`);
      expect(page1.status).to.equal(200);
      expect(page1.body.total).to.equal(3);
      expect(page1.body.items.map((b: { name: string }) => b.name)).to.deep.equal([`List ${tag} a`, `List ${tag} b`]);
      const page2 = await t.owner.get(`/api/v1/bundles?search=${tag}&page_size=2&page=2`);
      expect(page2.body.items.map((b: { name: string }) => b.name)).to.deep.equal([`List ${tag} c`]);
      expect(page2.body.items[0]).to.not.have.property('bundle_key');
    });

    it('treats % and _ in search literally', async () => {
      const res = await t.owner.get('/api/v1/bundles?search=%25%25_');
      expect(res.status).to.equal(200);
      expect(res.body.total).to.equal(0);
    });

    it('answers 401 without a credential', async () => {
      expect((await t.anon.get('/api/v1/bundles')).status).to.equal(401);
    });
  });

  describe('GET /api/v1/bundles/{bundle_id} and by-agent', () => {
    it('shows tools in display order with overrides and effective definitions', async () => {
      const agentId = randomUUID();
      const created = await create({
        name: uniqueName(),
        agent_id: agentId,
        tools: [
          { tool_id: tools.list_issues!.id, display_order: 5 },
          {
            tool_id: tools.create_issue!.id,
            display_order: 1,
            override: { name: 'file_bug', title: 'File a bug', hidden_arguments: ['label'] },
          },
        ],
      });
      const res = await t.owner.get(`/api/v1/bundles/${created.body.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.not.have.property('bundle_key');
      expect(res.body.tools.map((x: { name: string }) => x.name)).to.deep.equal(['create_issue', 'list_issues']);
      const [first] = res.body.tools;
      expect(first).to.include({ server_name: 'github', available: true, enabled: true, display_order: 1 });
      expect(first.override).to.include({ name: 'file_bug', title: 'File a bug', enabled: true });
      expect(first.override.hidden_arguments).to.deep.equal(['label']);
      expect(first.effective).to.include({ name: 'file_bug', title: 'File a bug', description: 'create_issue tool' });
      const byAgent = await t.owner.get(`/api/v1/bundles/by-agent/${agentId}`);
      expect(byAgent.status).to.equal(200);
      expect(byAgent.body.id).to.equal(created.body.id);
    });

    it('shows a tool gone from the catalog as unavailable', async () => {
      const { tools: temp, serverId } = putFixtureServer(t.server.services.catalog, 'temp', [{ name: 'ephemeral' }]);
      const created = await create({ name: uniqueName(), tools: [{ tool_id: temp.ephemeral!.id }] });
      t.server.services.catalog.removeServer(serverId);
      const res = await t.owner.get(`/api/v1/bundles/${created.body.id}`);
      expect(res.body.tools[0]).to.include({ name: 'ephemeral', server_name: 'temp', available: false });
    });

    it('answers 404 for an unknown bundle and for an agent without a bundle', async () => {
      expect((await t.owner.get(`/api/v1/bundles/${randomUUID()}`)).status).to.equal(404);
      expect((await t.owner.get(`/api/v1/bundles/by-agent/${randomUUID()}`)).status).to.equal(404);
    });

    it('answers 401 without a credential', async () => {
      expect((await t.anon.get(`/api/v1/bundles/${randomUUID()}`)).status).to.equal(401);
      expect((await t.anon.get(`/api/v1/bundles/by-agent/${randomUUID()}`)).status).to.equal(401);
    });
  });

  describe('PUT /api/v1/bundles/{bundle_id}', () => {
    it('updates name and description, keeps the key, and returns it', async () => {
      const created = await create({ name: uniqueName(), description: 'old', agent_id: randomUUID() });
      const res = await t.owner.put(`/api/v1/bundles/${created.body.id}`, { name: uniqueName('Renamed'), description: null });
      expect(res.status).to.equal(200);
      expect(res.body.bundle_key).to.equal(created.body.bundle_key);
      expect(res.body.description).to.equal(null);
      expect(res.body.agent_id).to.equal(created.body.agent_id); // absent: unchanged
      const unlinked = await t.owner.put(`/api/v1/bundles/${created.body.id}`, { name: res.body.name, agent_id: null });
      expect(unlinked.body.agent_id).to.equal(null);
    });

    it('answers 409 for a taken name and 404 for an unknown bundle', async () => {
      const a = await create({ name: uniqueName() });
      const b = await create({ name: uniqueName() });
      expect((await t.owner.put(`/api/v1/bundles/${b.body.id}`, { name: a.body.name })).status).to.equal(409);
      expect((await t.owner.put(`/api/v1/bundles/${randomUUID()}`, { name: uniqueName() })).status).to.equal(404);
    });
  });

  describe('DELETE /api/v1/bundles/{bundle_id}', () => {
    it('deletes the bundle and its tool associations (204), and its key stops working', async () => {
      const created = await create({ name: uniqueName(), tools: [{ tool_id: tools.echo!.id }] });
      const res = await t.owner.delete(`/api/v1/bundles/${created.body.id}`);
      expect(res.status).to.equal(204);
      expect(await t.server.services.db.knex('bundle_tools').where({ bundle_id: created.body.id })).to.have.length(0);
      expect((await t.owner.get(`/api/v1/bundles/${created.body.id}`)).status).to.equal(404);
      expect((await t.anon.get(`/mcp/bundle/${created.body.bundle_key}/info`)).status).to.equal(404);
      expect((await t.owner.delete(`/api/v1/bundles/${created.body.id}`)).status).to.equal(404);
    });
  });

  describe('POST /api/v1/bundles/{bundle_id}/reorder', () => {
    it('sets display orders (204); unlisted tools keep theirs', async () => {
      const created = await create({
        name: uniqueName(),
        tools: [{ tool_id: tools.echo!.id }, { tool_id: tools.list_issues!.id }, { tool_id: tools.create_issue!.id }],
      });
      const res = await t.owner.post(`/api/v1/bundles/${created.body.id}/reorder`, {
        tool_orders: [
          [tools.create_issue!.id, 0],
          [tools.echo!.id, 7],
        ],
      });
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      const got = await t.owner.get(`/api/v1/bundles/${created.body.id}`);
      expect(got.body.tools.map((x: { name: string; display_order: number }) => [x.name, x.display_order])).to.deep.equal([
        ['create_issue', 0],
        ['list_issues', 1],
        ['echo', 7],
      ]);
    });

    it('answers 400 for a tool not in the bundle or listed twice, and changes nothing', async () => {
      const created = await create({ name: uniqueName(), tools: [{ tool_id: tools.echo!.id, display_order: 3 }] });
      const notIn = await t.owner.post(`/api/v1/bundles/${created.body.id}/reorder`, {
        tool_orders: [
          [tools.echo!.id, 9],
          [tools.list_issues!.id, 1],
        ],
      });
      expect(notIn.status).to.equal(400);
      const twice = await t.owner.post(`/api/v1/bundles/${created.body.id}/reorder`, {
        tool_orders: [
          [tools.echo!.id, 1],
          [tools.echo!.id, 2],
        ],
      });
      expect(twice.status).to.equal(400);
      const got = await t.owner.get(`/api/v1/bundles/${created.body.id}`);
      expect(got.body.tools[0].display_order).to.equal(3);
    });

    it('answers 404 for an unknown bundle', async () => {
      expect((await t.owner.post(`/api/v1/bundles/${randomUUID()}/reorder`, { tool_orders: [[randomUUID(), 1]] })).status).to.equal(404);
    });
  });

  describe('tools of a bundle', () => {
    it('adds tools after the last one (200), refuses one already in (409), removes one (204)', async () => {
      const created = await create({ name: uniqueName(), tools: [{ tool_id: tools.echo!.id, display_order: 4 }] });
      const added = await t.owner.post(`/api/v1/bundles/${created.body.id}/tools`, { tools: [{ tool_id: tools.list_issues!.id }] });
      expect(added.status).to.equal(200);
      expect(added.body.tools.map((x: { name: string; display_order: number }) => [x.name, x.display_order])).to.deep.equal([
        ['echo', 4],
        ['list_issues', 5],
      ]);
      const again = await t.owner.post(`/api/v1/bundles/${created.body.id}/tools`, { tools: [{ tool_id: tools.echo!.id }] });
      expect(again.status).to.equal(409);
      const removed = await t.owner.delete(`/api/v1/bundles/${created.body.id}/tools/${tools.echo!.id}`);
      expect(removed.status).to.equal(204);
      expect((await t.owner.delete(`/api/v1/bundles/${created.body.id}/tools/${tools.echo!.id}`)).status).to.equal(404);
      expect((await t.owner.get(`/api/v1/bundles/${created.body.id}`)).body.tool_count).to.equal(1);
    });

    it('replaces an override (200) and checks it: 409 on a name clash, 422 on hiding a required argument', async () => {
      const created = await create({ name: uniqueName(), tools: [{ tool_id: tools.echo!.id }, { tool_id: tools.create_issue!.id }] });
      const path = `/api/v1/bundles/${created.body.id}/tools/${tools.create_issue!.id}/override`;
      const ok = await t.owner.put(path, {
        name: 'new_issue',
        defaults: { label: 'bug' },
        hidden_arguments: ['repo'],
        pinned: { repo: 'acme/app' },
      });
      expect(ok.status).to.equal(200);
      expect(ok.body.effective.name).to.equal('new_issue');
      expect(ok.body.override).to.include({ name: 'new_issue', enabled: true });
      expect((await t.owner.put(path, { name: 'echo' })).status).to.equal(409);
      const hidden = await t.owner.put(path, { hidden_arguments: ['title'] });
      expect(hidden.status).to.equal(422);
      const reset = await t.owner.put(path, {});
      expect(reset.body.effective.name).to.equal('create_issue');
      expect(reset.body.override.name).to.equal(null);
    });

    it('answers 404 for a tool that is not in the bundle', async () => {
      const created = await create({ name: uniqueName() });
      expect((await t.owner.put(`/api/v1/bundles/${created.body.id}/tools/${tools.echo!.id}/override`, {})).status).to.equal(404);
    });
  });

  describe('POST /api/v1/bundles/{bundle_id}/regenerate-key', () => {
    it('issues a new key; the old one stops at once', async () => {
      const created = await create({ name: uniqueName() });
      const res = await t.owner.post(`/api/v1/bundles/${created.body.id}/regenerate-key`);
      expect(res.status).to.equal(200);
      expect(res.body.bundle_key).to.not.equal(created.body.bundle_key);
      expect((await t.anon.get(`/mcp/bundle/${created.body.bundle_key}/info`)).status).to.equal(404);
      expect((await t.anon.get(`/mcp/bundle/${res.body.bundle_key}/info`)).status).to.equal(200);
      const updated = await t.owner.put(`/api/v1/bundles/${created.body.id}`, { name: created.body.name });
      expect(updated.body.bundle_key).to.equal(res.body.bundle_key);
    });
  });

  describe('persistence', () => {
    it('serves bundles and keys from the database after a restart', async () => {
      const dataServer = await startTestServer({ keepData: true });
      const { tools: ft } = putFixtureServer(dataServer.server.services.catalog, 'p', [{ name: 'echo' }]);
      const created = await dataServer.owner.post('/api/v1/bundles', { name: 'Persisted', tools: [{ tool_id: ft.echo!.id }] });
      const dataDir = dataServer.config.dataDir;
      const dbSchema = dataServer.config.databaseSchema;
      await dataServer.stop();
      const again = await startTestServer({ reuse: { dataDir, schema: dbSchema } });
      try {
        const info = await again.anon.get(`/mcp/bundle/${created.body.bundle_key}/info`);
        expect(info.status).to.equal(200);
        expect(info.body.name).to.equal('Persisted');
      } finally {
        await again.stop();
      }
    });
  });
});
