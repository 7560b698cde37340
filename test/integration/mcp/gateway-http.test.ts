import { expect } from 'chai';
import { createUser, type TestUser } from '../../helpers/identity.js';
import { mcpFetch, modernRequest, parseSse, RawSession, responseOf } from '../../helpers/mcp-http.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, schema, TestUpstreams } from '../../helpers/test-upstreams.js';

/** A raw legacy session on the gateway: the RawSession with the user's key on every request. */
class GatewaySession extends RawSession {
  constructor(
    url: string,
    version: string,
    readonly key: string,
  ) {
    super(url, version);
  }

  override headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.key}`, ...super.headers(extra) };
  }

  override async initialize() {
    const reply = await mcpFetch(this.url, {
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: this.version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      },
      headers: { authorization: `Bearer ${this.key}` },
    });
    this.sessionId = reply.headers.get('mcp-session-id') ?? '';
    await this.notify('notifications/initialized');
    return reply;
  }
}

const names = (reply: any): string[] => responseOf(reply).result.tools.map((t: { name: string }) => t.name);

describe('/mcp/gateway over raw HTTP', () => {
  let t: TestServer;
  let upstreams: TestUpstreams;
  let url: string;
  let admin: TestUser;
  let bundleA: { id: string };
  let bundleB: { id: string };

  before(async () => {
    upstreams = new TestUpstreams();
    t = await startTestServer({
      start: { upstreams, mcp: { callTimeoutMs: 500, slowResponseMs: 150 }, callRecorder: { flushIntervalMs: 50 } },
    });
    url = `${t.url}/mcp/gateway`;
    admin = await createUser(t, 'admin');
    const github = putFixtureServer(t.server.services.catalog, 'github', [
      { name: 'create_issue', inputSchema: schema({ title: { type: 'string' }, repo: { type: 'string' } }, ['title']) },
      { name: 'echo' },
      { name: 'progress' },
      { name: 'hang' },
    ]);
    const jira = putFixtureServer(t.server.services.catalog, 'jira', [{ name: 'create_issue' }, { name: 'search_tickets' }]);
    bundleA = (
      await t.owner.post('/api/v1/bundles', {
        name: 'Code Hosting',
        tools: [
          { tool_id: github.tools.create_issue!.id, display_order: 0, override: { defaults: { repo: 'acme/app' } } },
          { tool_id: github.tools.echo!.id, display_order: 1 },
          { tool_id: github.tools.progress!.id, display_order: 2 },
          { tool_id: github.tools.hang!.id, display_order: 3 },
        ],
      })
    ).body;
    bundleB = (
      await t.owner.post('/api/v1/bundles', {
        name: 'Tickets!',
        tools: [
          { tool_id: jira.tools.create_issue!.id, display_order: 0 },
          { tool_id: jira.tools.search_tickets!.id, display_order: 1, override: { name: 'find_tickets' } },
        ],
      })
    ).body;
  });
  after(() => t?.stop());

  describe('authentication and errors as JSONRPCError', () => {
    it('answers 401 (-32004) with WWW-Authenticate without a key, with a bad key, and with a cookie only', async () => {
      const variants: Record<string, string>[] = [{}, { authorization: 'Bearer tg_usr_live_nope' }, { cookie: 'access_token=abc' }];
      for (const headers of variants) {
        const reply = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers });
        expect(reply.status).to.equal(401);
        expect(reply.json).to.deep.include({ jsonrpc: '2.0', id: null });
        expect(reply.json.error.code).to.equal(-32004);
        expect(reply.headers.get('www-authenticate')).to.match(/^Bearer/);
      }
    });

    it('answers 403 (-32004) to a key without the mcp scope', async () => {
      const user = await createUser(t, 'admin', { scopes: ['api:read', 'api:write'] });
      const reply = await mcpFetch(url, {
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
        headers: { authorization: `Bearer ${user.key}` },
      });
      expect(reply.status).to.equal(403);
      expect(reply.json.error.code).to.equal(-32004);
      expect(reply.json.error.message).to.match(/mcp scope/);
    });

    it('answers 405 (JSON-RPC body, Allow) to other HTTP methods', async () => {
      const reply = await mcpFetch(url, { method: 'PUT', body: {}, headers: { authorization: `Bearer ${admin.key}` }, unchecked: true });
      expect(reply.status).to.equal(405);
      expect(reply.headers.get('allow')).to.equal('GET, POST, DELETE');
      expect(reply.json.error.code).to.equal(-32600);
    });

    it('answers the transport errors of the core as JSON-RPC errors (406, 415, 400 -32700)', async () => {
      const auth = { authorization: `Bearer ${admin.key}` };
      const notAcceptable = await mcpFetch(url, {
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
        headers: { ...auth, accept: 'application/json' },
      });
      expect(notAcceptable.status).to.equal(406);
      const wrongType = await mcpFetch(url, { rawBody: 'x', headers: { ...auth, 'content-type': 'text/plain' } });
      expect(wrongType.status).to.equal(415);
      const garbled = await mcpFetch(url, { rawBody: '{', headers: auth });
      expect(garbled.status).to.equal(400);
      expect(garbled.json.error.code).to.equal(-32700);
    });
  });

  describe('protocol versions and sessions', () => {
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      it(`serves ${version}: initialize, tools/list, tools/call`, async () => {
        const s = new GatewaySession(url, version, admin.key);
        const init = await s.initialize();
        expect(init.status).to.equal(200);
        expect(init.json.result.protocolVersion).to.equal(version);
        expect(init.json.result.serverInfo.title).to.equal('Toolgate gateway');
        expect(s.sessionId).to.match(/^[\x21-\x7E]{32,}$/);
        const list = await s.request('tools/list');
        expect(list.status).to.equal(200);
        expect(names(list)).to.include('echo');
        const call = await s.call('echo', { hello: 'world' });
        expect(call.result.structuredContent).to.deep.equal({ args: { hello: 'world' } });
      });
    }

    it('serves 2026-07-28 statelessly', async () => {
      const { headers, body } = modernRequest('tools/list');
      const reply = await mcpFetch(url, { body, headers: { ...headers, authorization: `Bearer ${admin.key}` } });
      expect(reply.status).to.equal(200);
      expect(reply.json.result.resultType).to.equal('complete');
      expect(reply.json.result.tools.map((x: { name: string }) => x.name)).to.include('find_tickets');
      const del = await mcpFetch(url, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${admin.key}`, 'mcp-protocol-version': '2026-07-28' },
      });
      expect(del.status).to.equal(405);
    });

    it('binds a session to the key that opened it: another key (even of the same user) gets 404', async () => {
      const s = new GatewaySession(url, '2025-06-18', admin.key);
      await s.initialize();
      const second = await t.server.services.apiKeys.issue(admin.id, { name: 'second', rateLimitRpm: null, expiresAt: null });
      const other = await mcpFetch(url, {
        body: { jsonrpc: '2.0', id: 9, method: 'tools/list' },
        headers: { authorization: `Bearer ${second.key}`, 'mcp-session-id': s.sessionId, 'mcp-protocol-version': '2025-06-18' },
      });
      expect(other.status).to.equal(404);
      expect(other.json.error.code).to.equal(-32005);
      const owner = await mcpFetch(url, {
        body: { jsonrpc: '2.0', id: 9, method: 'tools/list' },
        headers: { authorization: `Bearer ${t.ownerKey}`, 'mcp-session-id': s.sessionId, 'mcp-protocol-version': '2025-06-18' },
      });
      expect(owner.status).to.equal(404);
    });

    it('ends a session on DELETE (204); later requests answer 404; 400 without a session id', async () => {
      const s = new GatewaySession(url, '2025-11-25', admin.key);
      await s.initialize();
      const missing = await mcpFetch(url, { method: 'DELETE', headers: { authorization: `Bearer ${admin.key}` } });
      expect(missing.status).to.equal(400);
      const del = await mcpFetch(url, { method: 'DELETE', headers: s.headers() });
      expect(del.status).to.equal(204);
      const after = await s.request('tools/list');
      expect(after.status).to.equal(404);
      expect(after.json.error.code).to.equal(-32005);
    });
  });

  describe('direct mode', () => {
    it('lists the tools of every bundle the user may use, colliding names qualified by bundle', async () => {
      const s = new GatewaySession(url, '2025-06-18', admin.key);
      await s.initialize();
      const listed = names(await s.request('tools/list'));
      expect(listed).to.have.members(['code_hosting__create_issue', 'echo', 'progress', 'hang', 'tickets__create_issue', 'find_tickets']);
    });

    it('applies the bundle override on a call through a qualified name, and records the call with user and key', async () => {
      upstreams.calls.length = 0;
      const s = new GatewaySession(url, '2025-06-18', admin.key);
      await s.initialize();
      const res = await s.call('code_hosting__create_issue', { title: 'Bug' });
      expect(res.result.isError).to.not.equal(true);
      expect(upstreams.calls.at(-1)).to.deep.include({ tool: 'create_issue', args: { title: 'Bug', repo: 'acme/app' } });
      const unknown = await s.call('create_issue', {});
      expect(unknown.error.code).to.equal(-32602);
      await t.server.services.callRecorder.flush();
      const rows = await t.server.services.db
        .knex('call_records')
        .where({ endpoint: 'gateway', tool_name: 'create_issue', user_id: admin.id })
        .select('bundle_id', 'api_key_id', 'status');
      expect(rows).to.deep.include({ bundle_id: bundleA.id, api_key_id: admin.keyId, status: 'ok' });
      // The dashboard counts gateway calls with the others (from the same records and rollups).
      const recorded = Number((await t.server.services.db.knex('call_records').count({ n: '*' }))[0]!.n);
      const dashboard = await t.owner.get('/api/v1/dashboard');
      expect(dashboard.status).to.equal(200);
      expect(dashboard.body.stats.calls_24h).to.equal(recorded);
    });

    it('serves only the selected bundles, in the selection order, without qualifying names that no longer collide', async () => {
      const user = await createUser(t, 'admin');
      const put = await user.client.put('/api/v1/users/me/gateway-settings', { bundle_ids: [bundleB.id] });
      expect(put.status).to.equal(200);
      const { headers, body } = modernRequest('tools/list');
      const reply = await mcpFetch(url, { body, headers: { ...headers, authorization: `Bearer ${user.key}` } });
      expect(reply.json.result.tools.map((x: { name: string }) => x.name)).to.deep.equal(['create_issue', 'find_tickets']);
    });
  });

  describe('search index follows bundle and catalog changes', () => {
    let user: TestUser;
    const search = async (query: string): Promise<string[]> => {
      const { headers, body } = modernRequest('tools/call', { name: 'search', arguments: { query } });
      const reply = await mcpFetch(url, { body, headers: { ...headers, authorization: `Bearer ${user.key}` } });
      return responseOf(reply).result.structuredContent.tools.map((x: { name: string }) => x.name);
    };

    before(async () => {
      user = await createUser(t, 'admin');
      const put = await user.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute', bundle_ids: [bundleB.id] });
      expect(put.status).to.equal(200);
    });

    it('finds a tool by the words of a new override description, at once', async () => {
      expect(await search('zebra migration')).to.deep.equal([]);
      const jiraTool = (await t.owner.get(`/api/v1/bundles/${bundleB.id}`)).body.tools.find((x: any) => x.name === 'search_tickets');
      const res = await t.owner.put(`/api/v1/bundles/${bundleB.id}/tools/${jiraTool.tool_id}/override`, {
        name: 'find_tickets',
        description: 'Tracks zebra migration tickets',
      });
      expect(res.status).to.equal(200);
      expect(await search('zebra migration')).to.deep.equal(['find_tickets']);
    });

    it('follows the catalog: a tool switched off upstream side is no longer found, and is again once back', async () => {
      const catalog = t.server.services.catalog;
      const tool = (await t.owner.get(`/api/v1/bundles/${bundleB.id}`)).body.tools.find((x: any) => x.name === 'create_issue');
      expect(await search('create issue')).to.include('create_issue');
      catalog.setToolsEnabled([tool.tool_id], false);
      expect(await search('create issue')).to.not.include('create_issue');
      catalog.setToolsEnabled([tool.tool_id], true);
      expect(await search('create issue')).to.include('create_issue');
    });

    it('drops the tools of a bundle removed from the selection or deleted', async () => {
      const temp = (await t.owner.post('/api/v1/bundles', { name: 'Temp', tools: [] })).body;
      const echoId = (await t.owner.get(`/api/v1/bundles/${bundleA.id}`)).body.tools.find((x: any) => x.name === 'echo').tool_id;
      expect(
        (await t.owner.post(`/api/v1/bundles/${temp.id}/tools`, { tools: [{ tool_id: echoId, override: { name: 'walrus_echo' } }] }))
          .status,
      ).to.be.oneOf([200, 201]);
      await user.client.put('/api/v1/users/me/gateway-settings', { bundle_ids: [bundleB.id, temp.id] });
      expect(await search('walrus')).to.deep.equal(['walrus_echo']);
      expect((await t.owner.delete(`/api/v1/bundles/${temp.id}`)).status).to.be.oneOf([200, 204]);
      expect(await search('walrus')).to.deep.equal([]);
      expect(t.server.mcp.search.has(`${temp.id}:${echoId}`)).to.equal(false);
    });
  });

  describe('rate limit', () => {
    it('answers 429 (-32003) with Retry-After and RateLimit headers once the key budget is spent', async () => {
      const user = await createUser(t, 'member', { rateLimitRpm: 3 });
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await mcpFetch(url, {
          body: {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
          },
          headers: { authorization: `Bearer ${user.key}` },
        });
        statuses.push(last.status);
      }
      expect(statuses).to.deep.equal([200, 200, 200, 429]);
      expect(last!.json.error.code).to.equal(-32003);
      expect(Number(last!.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(last!.headers.get('ratelimit-limit')).to.equal('3');
      expect(last!.headers.get('ratelimit-remaining')).to.equal('0');
    });

    it('reports the remaining budget on successful answers', async () => {
      const user = await createUser(t, 'member', { rateLimitRpm: 50 });
      const { headers, body } = modernRequest('tools/list');
      const reply = await mcpFetch(url, { body, headers: { ...headers, authorization: `Bearer ${user.key}` } });
      expect(reply.headers.get('ratelimit-limit')).to.equal('50');
      expect(reply.headers.get('ratelimit-remaining')).to.equal('49');
    });
  });

  describe('GET stream and list_changed', () => {
    it('sends notifications/tools/list_changed when the user changes their gateway settings', async () => {
      const user = await createUser(t, 'admin');
      const s = new GatewaySession(url, '2025-06-18', user.key);
      await s.initialize();
      const controller = new AbortController();
      const res = await fetch(url, { headers: { ...s.headers(), accept: 'text/event-stream' }, signal: controller.signal });
      expect(res.status).to.equal(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const put = await user.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute' });
      expect(put.status).to.equal(200);
      while (!text.includes('list_changed')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
      controller.abort();
      expect(parseSse(text).map((m) => m.method)).to.include('notifications/tools/list_changed');
      expect(names(await s.request('tools/list'))).to.deep.equal(['search', 'execute']);
    });

    it('sends list_changed when a served bundle or its server catalog changes', async () => {
      const user = await createUser(t, 'admin');
      const s = new GatewaySession(url, '2025-11-25', user.key);
      await s.initialize();
      const controller = new AbortController();
      const res = await fetch(url, { headers: { ...s.headers(), accept: 'text/event-stream' }, signal: controller.signal });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      const heard = async (): Promise<void> => {
        let text = '';
        while (!text.includes('list_changed')) {
          const { value, done } = await reader.read();
          if (done) throw new Error('stream ended');
          text += decoder.decode(value);
        }
      };
      try {
        const renamed = await t.owner.put(`/api/v1/bundles/${bundleA.id}`, { name: 'Code Hosting' });
        expect(renamed.status).to.equal(200);
        await heard();
        const echo = (await t.owner.get(`/api/v1/bundles/${bundleA.id}`)).body.tools.find((x: any) => x.name === 'echo');
        t.server.services.catalog.setToolsEnabled([echo.tool_id], false);
        await heard();
        expect(names(await s.request('tools/list'))).to.not.include('echo');
        t.server.services.catalog.setToolsEnabled([echo.tool_id], true);
        await heard();
        expect(names(await s.request('tools/list'))).to.include('echo');
      } finally {
        controller.abort();
      }
    });
  });
});
