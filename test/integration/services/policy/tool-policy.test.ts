import { expect } from 'chai';
import { createUser, type TestUser } from '../../../helpers/identity.js';
import { mcpFetch, modernRequest, responseOf, type McpReply } from '../../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../../helpers/test-server.js';
import { putFixtureServer, TestUpstreams } from '../../../helpers/test-upstreams.js';

/**
 * The tool policy end to end: rules written through REST (validated, recorded, applied at once)
 * decide `tools/list`, the gateway's `search` and `execute`, and `tools/call` on the bundle
 * route and on `/mcp/gateway` alike; a denied call is a JSON-RPC error naming the rule; a
 * condition on the arguments decides each call; "test this rule" answers as the routes do.
 */
describe('tool policy', function () {
  this.timeout(120_000);
  let t: TestServer;
  let upstreams: TestUpstreams;
  let admin: TestUser;
  let member: TestUser;
  let other: TestUser;
  let serverId: string;
  let bundle: { id: string; bundle_key: string };
  let team: { id: string };

  async function rpc(url: string, method: string, params: Record<string, unknown> = {}, key?: string): Promise<McpReply> {
    const { headers, body } = modernRequest(method, params);
    return mcpFetch(url, { body, headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) } });
  }
  const bundleUrl = () => `${t.url}/mcp/bundle/${bundle.bundle_key}`;
  const gatewayUrl = () => `${t.url}/mcp/gateway`;
  async function names(url: string, key?: string): Promise<string[]> {
    const reply = await rpc(url, 'tools/list', {}, key);
    expect(reply.status, reply.text).to.equal(200);
    return responseOf(reply)
      .result.tools.map((x: { name: string }) => x.name)
      .sort();
  }
  async function call(url: string, name: string, args: Record<string, unknown>, key?: string) {
    return responseOf(await rpc(url, 'tools/call', { name, arguments: args }, key));
  }
  async function rule(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
    const res = await admin.client.post('/api/v1/policies', body);
    expect(res.status, res.text).to.equal(201);
    return res.body;
  }
  async function clearRules(): Promise<void> {
    for (const r of (await admin.client.get('/api/v1/policies')).body.items) await admin.client.delete(`/api/v1/policies/${r.id}`);
  }

  before(async () => {
    upstreams = new TestUpstreams();
    t = await startTestServer({ start: { upstreams }, env: { TOOLGATE_DEFAULT_RATE_LIMIT_RPM: '100000' } });
    admin = await createUser(t, 'admin');
    member = await createUser(t, 'member');
    other = await createUser(t, 'member');
    const fixture = putFixtureServer(t.server.services.catalog, 'files', [
      { name: 'echo', description: 'Echo the arguments back' },
      { name: 'write_file', description: 'Write a file to the disk' },
      { name: 'write_log', description: 'Append a line to the log' },
      { name: 'read_file', description: 'Read a file from the disk' },
    ]);
    serverId = fixture.serverId;
    const created = await admin.client.post('/api/v1/bundles', {
      name: 'Files',
      tools: Object.values(fixture.tools).map((tool) => ({ tool_id: tool.id })),
    });
    expect(created.status, created.text).to.equal(201);
    bundle = created.body;
    team = (await admin.client.post('/api/v1/teams', { name: 'Writers' })).body;
    await admin.client.put(`/api/v1/teams/${team.id}/members/${member.id}`);
    await admin.client.put(`/api/v1/bundles/${bundle.id}/shares`, {
      shares: [
        { principal_type: 'team', principal_id: team.id, access: 'use' },
        { principal_type: 'user', principal_id: other.id, access: 'use' },
      ],
    });
  });
  afterEach(clearRules);
  after(() => t?.stop());

  describe('REST', () => {
    it('creates, reads, updates and deletes a rule, in decision order, each in the activity log', async () => {
      const b = await rule({ name: 'second', effect: 'deny', priority: 20, tools: ['write_*'] });
      const a = await rule({ name: 'first', effect: 'allow', priority: 10, teams: [team.id], condition: 'args.size < 10' });
      expect(a).to.deep.include({
        effect: 'allow',
        priority: 10,
        enabled: true,
        servers: [],
        bundles: [],
        users: [],
        condition: 'args.size < 10',
      });
      const list = await admin.client.get('/api/v1/policies');
      expect(list.body.items.map((r: { name: string }) => r.name)).to.deep.equal(['first', 'second']);
      const patched = await admin.client.patch(`/api/v1/policies/${b.id}`, { priority: 5, condition: null, enabled: false });
      expect(patched.status).to.equal(200);
      expect(patched.body).to.include({ priority: 5, condition: null, enabled: false });
      expect((await admin.client.get(`/api/v1/policies/${b.id}`)).body.priority).to.equal(5);
      expect((await admin.client.delete(`/api/v1/policies/${a.id}`)).status).to.equal(204);
      expect((await admin.client.get(`/api/v1/policies/${a.id}`)).status).to.equal(404);
      const actions = (await t.server.services.stores.activity.recent({ limit: 100, failedOnly: false })).map((r) => r.action);
      for (const action of ['policy.create', 'policy.update', 'policy.delete']) expect(actions).to.include(action);
    });

    it('answers 422 at the condition for CEL that does not parse, names an unknown variable, or is not boolean', async () => {
      for (const condition of ['args.(', 'request.size > 1', 'args.size + 1']) {
        const res = await admin.client.post('/api/v1/policies', { name: 'bad', effect: 'deny', condition });
        expect(res.status, condition).to.equal(422);
        expect(res.body.detail[0].loc).to.deep.equal(['body', 'condition']);
        expect(res.body.detail[0].msg).to.match(/^Invalid CEL condition: /);
      }
      expect((await admin.client.post('/api/v1/policies', { name: 'x', effect: 'maybe' })).status).to.equal(422);
      expect((await admin.client.post('/api/v1/policies', { name: 'x', effect: 'deny', servers: ['not-a-uuid'] })).status).to.equal(422);
    });

    it('is for admins only', async () => {
      expect((await member.client.get('/api/v1/policies')).status).to.equal(403);
      expect((await member.client.post('/api/v1/policies', { name: 'x', effect: 'allow' })).status).to.equal(403);
      expect((await member.client.post('/api/v1/policies/evaluate', { server_id: serverId, tool_name: 'echo' })).status).to.equal(403);
    });
  });

  describe('decisions on the MCP routes', () => {
    it('a deny rule for everyone hides the tool on both routes and a call gets -32004 naming the rule', async () => {
      expect(await names(bundleUrl())).to.include('write_file');
      const r = await rule({ name: 'No file writes', effect: 'deny', servers: [serverId], tools: ['write_file'] });
      expect(await names(bundleUrl())).to.deep.equal(['echo', 'read_file', 'write_log']);
      expect(await names(gatewayUrl(), member.key)).to.deep.equal(['echo', 'read_file', 'write_log']);
      for (const [url, key] of [
        [bundleUrl(), undefined],
        [gatewayUrl(), member.key],
      ] as const) {
        const before = upstreams.calls.length;
        const res = await call(url, 'write_file', { path: '/x' }, key);
        expect(res.error.code).to.equal(-32004);
        expect(res.error.message).to.include('No file writes').and.include(r.id);
        expect(res.error.data).to.deep.equal({ reason: 'policy_denied', rule: { id: r.id, name: 'No file writes' } });
        expect(upstreams.calls.length, 'the upstream is not called').to.equal(before);
      }
      // The policy's decision is recorded as such, never as an error of the upstream server.
      await t.server.services.callRecorder.flush();
      const rows = await t.server.services.db
        .knex('call_records')
        .where({ tool_name: 'write_file' })
        .orderBy('occurred_at', 'desc')
        .limit(2);
      expect(rows.map((row) => row.status)).to.deep.equal(['denied', 'denied']);
    });

    it('matches tools by glob, subjects by team and user; the first rule in priority order decides', async () => {
      await rule({ name: 'Writers may write', effect: 'allow', priority: 1, teams: [team.id], tools: ['write_*'] });
      await rule({ name: 'Nobody else writes', effect: 'deny', priority: 2, tools: ['write_*'] });
      await rule({ name: 'Other may not read', effect: 'deny', priority: 3, users: [other.id], tools: ['read_?ile'] });
      expect(await names(gatewayUrl(), member.key)).to.deep.equal(['echo', 'read_file', 'write_file', 'write_log']);
      expect(await names(gatewayUrl(), other.key)).to.deep.equal(['echo']);
      expect(await names(bundleUrl())).to.deep.equal(['echo', 'read_file']);
      expect((await call(gatewayUrl(), 'write_log', { line: 'hi' }, member.key)).result).to.be.an('object');
      expect((await call(gatewayUrl(), 'read_file', {}, other.key)).error.message).to.include('Other may not read');
    });

    it('a conditional deny keeps the tool listed and decides each call by its arguments', async () => {
      await rule({
        name: 'No writes under /etc',
        effect: 'deny',
        tools: ['write_file'],
        condition: 'has(args.path) && args.path.startsWith("/etc")',
      });
      expect(await names(bundleUrl())).to.include('write_file');
      const denied = await call(bundleUrl(), 'write_file', { path: '/etc/passwd' });
      expect(denied.error.code).to.equal(-32004);
      expect(denied.error.message).to.include('No writes under /etc');
      const allowed = await call(bundleUrl(), 'write_file', { path: '/tmp/notes' });
      expect(allowed.result, JSON.stringify(allowed)).to.be.an('object');
      expect(upstreams.calls.at(-1)).to.deep.include({ tool: 'write_file', args: { path: '/tmp/notes' } });
    });

    it('search leaves denied tools out and execute refuses them with the rule', async () => {
      await member.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute', search_result_limit: 20 });
      try {
        await rule({ name: 'Hide reads', effect: 'deny', tools: ['read_file'] });
        const found = await call(gatewayUrl(), 'search', { query: 'read a file from the disk' }, member.key);
        const hits = found.result.structuredContent.tools.map((x: { name: string }) => x.name);
        expect(hits).to.not.include('read_file');
        expect(hits).to.include('write_file');
        const executed = await call(gatewayUrl(), 'execute', { name: 'read_file', arguments: {} }, member.key);
        expect(executed.error.code).to.equal(-32004);
        expect(executed.error.message).to.include('Hide reads');
      } finally {
        await member.client.put('/api/v1/users/me/gateway-settings', { mode: 'direct' });
      }
    });

    it('applies a change at once, and a disabled rule does nothing', async () => {
      const r = await rule({ name: 'Echo off', effect: 'deny', tools: ['echo'] });
      expect(await names(bundleUrl())).to.not.include('echo');
      await admin.client.patch(`/api/v1/policies/${r.id}`, { enabled: false });
      expect(await names(bundleUrl())).to.include('echo');
      expect(await names(gatewayUrl(), member.key)).to.include('echo');
    });
  });

  describe('POST /api/v1/policies/evaluate ("test this rule")', () => {
    it('answers as the routes decide, for the saved rules and for a draft alone', async () => {
      const r = await rule({ name: 'Writers only', effect: 'deny', tools: ['write_*'], condition: 'args.force == true' });
      const listing = await admin.client.post('/api/v1/policies/evaluate', {
        server_id: serverId,
        tool_name: 'write_file',
        user_id: member.id,
      });
      expect(listing.status, listing.text).to.equal(200);
      expect(listing.body).to.deep.equal({ allowed: true, rule: null, conditional: true, applies: false });
      const forced = await admin.client.post('/api/v1/policies/evaluate', {
        server_id: serverId,
        tool_name: 'write_file',
        bundle_id: bundle.id,
        arguments: { force: true },
      });
      expect(forced.body).to.deep.equal({ allowed: false, rule: { id: r.id, name: 'Writers only' }, conditional: false, applies: true });
      const draft = await admin.client.post('/api/v1/policies/evaluate', {
        server_id: serverId,
        tool_name: 'read_file',
        user_id: member.id,
        rule: { name: 'Team reads', effect: 'allow', teams: [team.id], tools: ['read_*'] },
      });
      expect(draft.body).to.deep.include({ allowed: true, applies: true });
      const misses = await admin.client.post('/api/v1/policies/evaluate', {
        server_id: serverId,
        tool_name: 'read_file',
        user_id: other.id,
        rule: { name: 'Team reads', effect: 'deny', teams: [team.id] },
      });
      expect(misses.body).to.deep.equal({ allowed: true, rule: null, conditional: false, applies: false });
      const bad = await admin.client.post('/api/v1/policies/evaluate', {
        server_id: serverId,
        tool_name: 'x',
        rule: { name: 'bad', effect: 'deny', condition: 'nope' },
      });
      expect(bad.status).to.equal(422);
      expect(bad.body.detail[0].loc).to.deep.equal(['body', 'rule', 'condition']);
    });
  });
});
