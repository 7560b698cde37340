import { expect } from 'chai';
import fc from 'fast-check';
import { createUser, type TestUser } from '../../helpers/identity.js';
import { mcpFetch, modernRequest, responseOf, type McpReply } from '../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../helpers/test-upstreams.js';

/**
 * Who reaches what on /mcp/gateway: credentials (no key, wrong scope, revoked, expired,
 * deactivated), reachability by role (admins every bundle, members the bundles they created),
 * and the proof that neither `search` nor `execute` reaches a tool outside the caller's bundles
 * (listing, searching and calling share one policy path), also under hostile input.
 */
describe('/mcp/gateway authorization', function () {
  this.timeout(180_000);
  let t: TestServer;
  let upstreams: TestUpstreams;
  let url: string;
  let creator: TestUser;
  let adminBundle: { id: string };
  let memberBundle: { id: string };
  let serverIds: string[];

  /** One stateless (2026-07-28) request with a key. */
  async function rpc(key: string, method: string, params: Record<string, unknown> = {}): Promise<McpReply> {
    const { headers, body } = modernRequest(method, params);
    return mcpFetch(url, { body, headers: { ...headers, authorization: `Bearer ${key}` } });
  }
  async function listed(key: string): Promise<string[]> {
    const reply = await rpc(key, 'tools/list');
    expect(reply.status, reply.text).to.equal(200);
    return reply.json.result.tools.map((x: { name: string }) => x.name);
  }
  async function settings(user: TestUser, body: Record<string, unknown>): Promise<void> {
    const res = await user.client.put('/api/v1/users/me/gateway-settings', body);
    expect(res.status, res.text).to.equal(200);
  }

  before(async () => {
    upstreams = new TestUpstreams();
    t = await startTestServer({ start: { upstreams }, env: { TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '100000' } });
    url = `${t.url}/mcp/gateway`;
    const secret = putFixtureServer(t.server.services.catalog, 'vault', [
      { name: 'read_secret', description: 'Read a secret value from the vault' },
      { name: 'rotate_keys', description: 'Rotate every encryption key' },
      { name: 'shared_tool', description: 'A tool both bundles hold' },
    ]);
    const notes = putFixtureServer(t.server.services.catalog, 'notes', [
      { name: 'write_note', description: 'Write a note to the notebook' },
      { name: 'list_notes', description: 'List the notes in the notebook' },
    ]);
    serverIds = [secret.serverId, notes.serverId];
    adminBundle = (
      await t.owner.post('/api/v1/bundles', {
        name: 'Vault',
        tools: [
          { tool_id: secret.tools.read_secret!.id },
          { tool_id: secret.tools.rotate_keys!.id, override: { name: 'rotate_everything' } },
          { tool_id: secret.tools.shared_tool!.id },
        ],
      })
    ).body;
    // A member reaches the bundles they created: created while they were an admin, then demoted.
    creator = await createUser(t, 'admin');
    memberBundle = (
      await creator.client.post('/api/v1/bundles', {
        name: 'Notes',
        tools: [
          { tool_id: notes.tools.write_note!.id },
          { tool_id: notes.tools.list_notes!.id },
          { tool_id: secret.tools.shared_tool!.id },
        ],
      })
    ).body;
    expect((await t.owner.patch(`/api/v1/users/${creator.id}`, { role: 'member' })).status).to.equal(200);
  });
  after(() => t?.stop());

  describe('credentials', () => {
    it('answers 401 without a key, with an unknown or malformed key, and with only a session cookie', async () => {
      const session = await t.server.services.sessions.create(creator.id, null);
      const cases: Record<string, string>[] = [
        {},
        { authorization: 'Bearer not-a-key' },
        { authorization: `Bearer tg_usr_live_${'Q'.repeat(43)}` },
        { cookie: `access_token=${session.token}` },
        { authorization: `Bearer ${session.token}` },
      ];
      for (const headers of cases) {
        const reply = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers });
        expect(reply.status, JSON.stringify(headers)).to.equal(401);
        expect(reply.json.error.code).to.equal(-32004);
      }
    });

    it('answers 403 to a key without the mcp scope, whatever the role', async () => {
      const owner = await createUser(t, 'owner', { scopes: ['api:read', 'api:write'] });
      const reply = await rpc(owner.key, 'tools/list');
      expect(reply.status).to.equal(403);
      expect(reply.json.error.code).to.equal(-32004);
    });

    it('stops a revoked key at once, open session included', async () => {
      const user = await createUser(t, 'admin');
      const init = await mcpFetch(url, {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        },
        headers: { authorization: `Bearer ${user.key}` },
      });
      const sessionId = init.headers.get('mcp-session-id')!;
      const headers = { authorization: `Bearer ${user.key}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
      expect((await mcpFetch(url, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers })).status).to.equal(200);
      expect((await user.client.delete(`/api/v1/users/me/api-keys/${user.keyId}`)).status).to.equal(204);
      const after = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers });
      expect(after.status).to.equal(401);
      expect(after.json.error.code).to.equal(-32004);
    });

    it('closes the open GET streams of a revoked key and of a deactivated user', async () => {
      for (const stop of ['revoke', 'deactivate'] as const) {
        const user = await createUser(t, 'admin');
        const init = await mcpFetch(url, {
          body: {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
          },
          headers: { authorization: `Bearer ${user.key}` },
        });
        const headers = {
          authorization: `Bearer ${user.key}`,
          'mcp-session-id': init.headers.get('mcp-session-id')!,
          'mcp-protocol-version': '2025-11-25',
          accept: 'text/event-stream',
        };
        const stream = await fetch(url, { headers });
        expect(stream.status).to.equal(200);
        const reader = stream.body!.getReader();
        await reader.read(); // the opening comment
        if (stop === 'revoke') expect((await user.client.delete(`/api/v1/users/me/api-keys/${user.keyId}`)).status).to.equal(204);
        else expect((await t.owner.delete(`/api/v1/users/${user.id}`)).status).to.be.oneOf([200, 204]);
        let done = false;
        while (!done) done = (await reader.read()).done;
        expect((await fetch(url, { headers })).status, stop).to.equal(401);
      }
    });

    it('stops a deactivated user at once', async () => {
      const user = await createUser(t, 'admin');
      expect((await rpc(user.key, 'tools/list')).status).to.equal(200);
      expect((await t.owner.delete(`/api/v1/users/${user.id}`)).status).to.be.oneOf([200, 204]);
      expect((await rpc(user.key, 'tools/list')).status).to.equal(401);
    });
  });

  describe('reachability by role', () => {
    it('gives admins and owners every bundle, members the bundles they created', async () => {
      const admin = await createUser(t, 'admin');
      const stranger = await createUser(t, 'member');
      expect(await listed(admin.key)).to.have.members([
        'read_secret',
        'rotate_everything',
        'vault__shared_tool',
        'write_note',
        'list_notes',
        'notes__shared_tool',
      ]);
      expect(await listed(t.ownerKey)).to.have.length(6);
      expect(await listed(creator.key)).to.have.members(['write_note', 'list_notes', 'shared_tool']);
      expect(await listed(stranger.key)).to.deep.equal([]);
    });

    it('refuses (400) a member selecting a bundle they may not use, and accepts their own', async () => {
      const denied = await creator.client.put('/api/v1/users/me/gateway-settings', { bundle_ids: [adminBundle.id] });
      expect(denied.status).to.equal(400);
      expect(denied.body.code).to.equal('bad_request');
      await settings(creator, { bundle_ids: [memberBundle.id] });
      expect(await listed(creator.key)).to.have.members(['write_note', 'list_notes', 'shared_tool']);
      await settings(creator, { bundle_ids: [] });
    });

    it('narrows at once when an admin is demoted, even with a selection naming other bundles', async () => {
      const user = await createUser(t, 'admin');
      await settings(user, { bundle_ids: [adminBundle.id, memberBundle.id] });
      expect(await listed(user.key)).to.have.length(6);
      expect((await t.owner.patch(`/api/v1/users/${user.id}`, { role: 'member' })).status).to.equal(200);
      expect(await listed(user.key)).to.deep.equal([]);
      const call = await rpc(user.key, 'tools/call', { name: 'read_secret', arguments: {} });
      expect(responseOf(call).error.code).to.equal(-32602);
    });

    it('never widens a selection whose bundles are gone to "every bundle"', async () => {
      const admin = await createUser(t, 'admin');
      const temp = (await admin.client.post('/api/v1/bundles', { name: 'Temp', tools: [] })).body;
      await settings(admin, { bundle_ids: [temp.id] });
      expect((await admin.client.delete(`/api/v1/bundles/${temp.id}`)).status).to.be.oneOf([200, 204]);
      expect(await listed(admin.key)).to.deep.equal([]);
    });
  });

  describe('search and execute cannot reach outside the caller bundles', () => {
    const queries = [
      'secret',
      'read secret value vault',
      'rotate encryption keys',
      'rotate_everything',
      'vault',
      'note',
      'shared tool',
      'a',
    ];

    before(async () => {
      await settings(creator, { mode: 'search_execute', search_result_limit: 50 });
    });

    it('never returns a tool outside the member bundles, whatever the query', async () => {
      const reachable = ['write_note', 'list_notes', 'shared_tool'];
      for (const query of queries) {
        const result = responseOf(await rpc(creator.key, 'tools/call', { name: 'search', arguments: { query } })).result;
        expect(result.isError, query).to.not.equal(true);
        const names = result.structuredContent.tools.map((x: { name: string }) => x.name);
        expect(reachable, `${query} → ${names.join(', ')}`).to.include.members(names);
      }
      const vault = responseOf(
        await rpc(creator.key, 'tools/call', { name: 'search', arguments: { query: 'read secret vault rotate' } }),
      ).result;
      expect(vault.structuredContent.tools.map((x: { name: string }) => x.name)).to.not.include('read_secret');
    });

    it('returns, for an admin, exactly what direct mode would list (same policy path)', async () => {
      const admin = await createUser(t, 'admin');
      const direct = await listed(admin.key);
      await settings(admin, { mode: 'search_execute', search_result_limit: 50 });
      const seen = new Set<string>();
      for (const query of [...queries, 'list', 'write', 'tool']) {
        const result = responseOf(await rpc(admin.key, 'tools/call', { name: 'search', arguments: { query } })).result;
        for (const x of result.structuredContent.tools) seen.add(x.name);
      }
      expect(direct).to.include.members([...seen]);
      expect([...seen]).to.include.members(['read_secret', 'rotate_everything', 'write_note']);
    });

    it('refuses to execute a tool outside the member bundles, by any name, without calling the upstream', async () => {
      const before = upstreams.calls.length;
      for (const name of [
        'read_secret',
        'rotate_keys',
        'rotate_everything',
        'vault__shared_tool',
        'notes__shared_tool',
        'search',
        'execute',
      ]) {
        const result = responseOf(await rpc(creator.key, 'tools/call', { name: 'execute', arguments: { name, arguments: {} } })).result;
        expect(result.isError, name).to.equal(true);
        expect(result.content[0].text).to.match(/^Unknown tool/);
      }
      expect(upstreams.calls.length).to.equal(before);
      const ok = responseOf(await rpc(creator.key, 'tools/call', { name: 'execute', arguments: { name: 'shared_tool' } })).result;
      expect(ok.isError).to.not.equal(true);
      expect(upstreams.calls.slice(before).map((c) => c.serverId)).to.deep.equal([serverIds[0]]);
    });

    it('cannot call the tools directly in search_execute mode', async () => {
      for (const name of ['write_note', 'read_secret']) {
        expect(responseOf(await rpc(creator.key, 'tools/call', { name, arguments: {} })).error.code).to.equal(-32602);
      }
    });

    it('answers hostile search and execute arguments with isError results, never a 500, a stack or a tool outside', async () => {
      const before = upstreams.calls.length;
      const hostile = fc.oneof(
        fc.string(),
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.integer(),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(fc.string(), { maxLength: 3 }),
        fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
        fc.constantFrom(
          '__proto__',
          'constructor',
          'toString',
          'read_secret',
          'rotate_everything',
          '\u0000',
          'x'.repeat(3000),
          '../../etc',
        ),
      );
      const args = fc.record(
        { query: hostile, limit: hostile, name: hostile, arguments: hostile, ['__proto__']: hostile, extra: hostile },
        { requiredKeys: [] },
      );
      const failures: string[] = [];
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('search', 'execute'), args, async (tool, input) => {
          const reply = await rpc(creator.key, 'tools/call', { name: tool, arguments: input });
          const answer = responseOf(reply);
          if (reply.status >= 500 || /at .+\.(ts|js):\d+/.test(reply.text))
            failures.push(`${tool} ${JSON.stringify(input)} → ${reply.status}`);
          if (answer?.result?.structuredContent?.tools) {
            for (const x of answer.result.structuredContent.tools)
              if (!['write_note', 'list_notes', 'shared_tool'].includes(x.name)) failures.push(`search surfaced ${x.name}`);
          }
          if (!answer || (!answer.result && !answer.error)) failures.push(`${tool} ${JSON.stringify(input)}: no answer`);
        }),
        { numRuns: 300, seed: 20261123 },
      );
      expect(failures, failures.slice(0, 5).join('\n')).to.deep.equal([]);
      // Whatever reached an upstream was one of the member's tools.
      const member = new Set([serverIds[1], serverIds[0]]);
      for (const call of upstreams.calls.slice(before)) {
        expect(member.has(call.serverId)).to.equal(true);
        if (call.serverId === serverIds[0]) expect(call.tool).to.equal('shared_tool');
      }
    });
  });
});
