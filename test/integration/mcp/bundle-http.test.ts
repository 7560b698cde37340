import http from 'node:http';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { ACCEPT_BOTH, mcpFetch, modernRequest, RawSession, responseOf } from '../../helpers/mcp-http.js';
import { putFixtureServer, schema, TestUpstreams } from '../../helpers/test-upstreams.js';

const FIXTURE_TOOLS = ['echo', 'progress', 'slow', 'hang', 'fail', 'die', 'garbage', 'bug'];

describe('/mcp/bundle/{bundle_key} over raw HTTP', () => {
  let t: TestServer;
  let upstreams: TestUpstreams;
  let tools: ReturnType<typeof putFixtureServer>['tools'];
  let serverId: string;
  let bundle: { id: string; bundle_key: string };
  let other: { id: string; bundle_key: string };
  let url: string;

  before(async () => {
    upstreams = new TestUpstreams();
    t = await startTestServer({
      env: { TOOLGATE_ALLOWED_ORIGINS: 'https://allowed.example' },
      start: { upstreams, mcp: { callTimeoutMs: 500, slowResponseMs: 150 }, callRecorder: { flushIntervalMs: 50 } },
    });
    ({ tools, serverId } = putFixtureServer(t.server.services.catalog, 'github', [
      {
        name: 'create_issue',
        inputSchema: schema(
          { title: { type: 'string' }, repo: { type: 'string' }, label: { type: 'string' }, internal: { type: 'boolean' } },
          ['title', 'repo'],
        ),
      },
      { name: 'list_issues' },
      ...FIXTURE_TOOLS.map((name) => ({ name })),
    ]));
    const created = await t.owner.post('/api/v1/bundles', {
      name: 'Main bundle',
      description: 'Use file_bug to report bugs.',
      tools: [
        { tool_id: tools.echo!.id, display_order: 0 },
        {
          tool_id: tools.create_issue!.id,
          display_order: 1,
          override: {
            name: 'file_bug',
            title: 'File a bug',
            description: 'Files a bug in the app repo',
            annotations: { destructiveHint: false },
            defaults: { label: 'triage' },
            pinned: { repo: 'acme/app' },
            hidden_arguments: ['internal'],
          },
        },
        { tool_id: tools.list_issues!.id, display_order: 2, override: { enabled: false } },
        ...FIXTURE_TOOLS.filter((n) => n !== 'echo').map((name, i) => ({ tool_id: tools[name]!.id, display_order: 10 + i })),
      ],
    });
    expect(created.status).to.equal(201);
    bundle = created.body;
    url = `${t.url}/mcp/bundle/${bundle.bundle_key}`;
    other = (await t.owner.post('/api/v1/bundles', { name: 'Other bundle', tools: [{ tool_id: tools.echo!.id }] })).body;
  });
  after(() => t.stop());

  describe('initialize and sessions', () => {
    it('answers initialize with server info, capabilities, instructions and an Mcp-Session-Id', async () => {
      const s = new RawSession(url, '2025-06-18');
      const reply = await s.initialize();
      expect(reply.status).to.equal(200);
      expect(s.sessionId).to.match(/^[\x21-\x7E]{32,}$/);
      const { result } = reply.json;
      expect(result.protocolVersion).to.equal('2025-06-18');
      expect(result.capabilities.tools).to.deep.equal({ listChanged: true });
      expect(result.serverInfo).to.include({ name: 'toolgate', version: '0.1.0' });
      expect(result.instructions).to.equal('Use file_bug to report bugs.');
    });

    it('answers the newest legacy version to an unsupported requested version', async () => {
      const s = new RawSession(url, '2024-01-01');
      const reply = await s.initialize();
      expect(reply.json.result.protocolVersion).to.equal('2025-11-25');
    });

    it('answers 202 with no body to a notification', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      const reply = await s.notify('notifications/initialized');
      expect(reply.status).to.equal(202);
      expect(reply.text).to.equal('');
    });

    it('serves a request without Mcp-Session-Id in a new implicit session (spec 4.11 rule 3)', async () => {
      const reply = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('mcp-session-id')).to.match(/^[\x21-\x7E]{32,}$/);
    });

    it('answers 404 for an unknown session, and a session never crosses bundles', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      const unknown = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: { 'mcp-session-id': 'nope' } });
      expect(unknown.status).to.equal(404);
      expect(unknown.json.error.code).to.equal(-32005);
      const crossed = await mcpFetch(`${t.url}/mcp/bundle/${other.bundle_key}`, {
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
        headers: { 'mcp-session-id': s.sessionId },
      });
      expect(crossed.status).to.equal(404);
    });

    it('ends a session on DELETE (204); later requests answer 404', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      expect((await s.request('ping')).status).to.equal(200);
      const del = await mcpFetch(url, { method: 'DELETE', headers: s.headers() });
      expect(del.status).to.equal(204);
      expect((await s.request('ping')).status).to.equal(404);
      expect((await mcpFetch(url, { method: 'DELETE', headers: s.headers() })).status).to.equal(404);
      expect((await mcpFetch(url, { method: 'DELETE' })).status).to.equal(400);
    });

    it('ends the sessions of a key when the key is regenerated', async () => {
      const created = (await t.owner.post('/api/v1/bundles', { name: 'Regenerated', tools: [{ tool_id: tools.echo!.id }] })).body;
      const s = new RawSession(`${t.url}/mcp/bundle/${created.bundle_key}`, '2025-11-25');
      await s.initialize();
      const regenerated = (await t.owner.post(`/api/v1/bundles/${created.id}/regenerate-key`)).body;
      expect((await s.request('ping')).status).to.equal(404);
      const sameSessionNewKey = await mcpFetch(`${t.url}/mcp/bundle/${regenerated.bundle_key}`, {
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
        headers: s.headers(),
      });
      expect(sameSessionNewKey.status).to.equal(404);
    });

    it('answers ping with an empty result', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      expect(responseOf(await s.request('ping')).result).to.deep.equal({});
    });
  });

  describe('transport errors', () => {
    it('answers 404 (-32005) for an unknown bundle key', async () => {
      const reply = await mcpFetch(`${t.url}/mcp/bundle/tg_bdl_unknown`, {
        body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      });
      expect(reply.status).to.equal(404);
      expect(reply.json.error.code).to.equal(-32005);
    });

    it('answers 403 (-32004) to a foreign Origin, and serves the same host and allowed origins', async () => {
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      };
      const evil = await mcpFetch(url, { body: init, headers: { origin: 'https://evil.example' } });
      expect(evil.status).to.equal(403);
      expect(evil.json.error.code).to.equal(-32004);
      expect((await mcpFetch(url, { method: 'GET', headers: { origin: 'https://evil.example' } })).status).to.equal(403);
      expect((await mcpFetch(url, { body: init, headers: { origin: 'https://allowed.example' } })).status).to.equal(200);
      expect((await mcpFetch(url, { body: init, headers: { origin: new URL(t.url).origin } })).status).to.equal(200);
    });

    it('answers 403 to a DNS-rebinding request (foreign Host and matching Origin) while bound to loopback', async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      const send = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const req = http.request(
            url,
            { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      expect(await send({ host: 'evil.example.com', origin: 'http://evil.example.com' })).to.equal(403);
      expect(await send({ host: 'evil.example.com' })).to.equal(403);
      expect(await send({ host: `localhost:${new URL(t.url).port}`, origin: `http://localhost:${new URL(t.url).port}` })).to.equal(200);
    });

    it('answers 406 when Accept does not list both media types', async () => {
      const reply = await mcpFetch(url, { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers: { accept: 'application/json' } });
      expect(reply.status).to.equal(406);
      expect(reply.json.error.code).to.equal(-32600);
    });

    it('answers 415 for a body that is not JSON', async () => {
      const reply = await mcpFetch(url, { rawBody: 'ping', headers: { 'content-type': 'text/plain' } });
      expect(reply.status).to.equal(415);
    });

    it('answers 413 for a body over the limit', async () => {
      const reply = await mcpFetch(url, {
        rawBody: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { x: 'y'.repeat(1_100_000) } }),
      });
      expect(reply.status).to.equal(413);
      expect(reply.json.error.code).to.equal(-32600);
    });

    it('answers 400 (-32700) for unparsable JSON and 400 (-32600) for a message that is not JSON-RPC', async () => {
      const parse = await mcpFetch(url, { rawBody: '{"jsonrpc": "2.0", ' });
      expect(parse.status).to.equal(400);
      expect(parse.json).to.deep.equal({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      const invalid = await mcpFetch(url, { body: { jsonrpc: '1.0', id: 1, method: 'ping' } });
      expect(invalid.status).to.equal(400);
      expect(invalid.json.error.code).to.equal(-32600);
    });

    it('answers 400 (-32022) to an unsupported MCP-Protocol-Version header', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      const reply = await s.request('ping', {}, { headers: { 'mcp-protocol-version': '1999-01-01' } });
      expect(reply.status).to.equal(400);
      expect(reply.json.error.code).to.equal(-32022);
      expect(reply.json.error.data.supported).to.include('2025-11-25');
    });

    it('accepts batches in 2025-03-26 only', async () => {
      const old = new RawSession(url, '2025-03-26');
      await old.initialize();
      const batch = [
        { jsonrpc: '2.0', id: 'a', method: 'ping' },
        { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { n: 1 } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ];
      const ok = await mcpFetch(url, { body: batch, headers: old.headers() });
      expect(ok.status).to.equal(200);
      expect(ok.json.map((r: { id: string }) => r.id)).to.deep.equal(['a', 'b']);
      expect(ok.json[1].result.structuredContent).to.deep.equal({ args: { n: 1 } });
      const newer = new RawSession(url, '2025-06-18');
      await newer.initialize();
      const refused = await mcpFetch(url, { body: batch, headers: newer.headers() });
      expect(refused.status).to.equal(400);
      expect(refused.json.error.code).to.equal(-32600);
    });

    it('answers 405 to other methods', async () => {
      const reply = await mcpFetch(url, { method: 'PUT', body: {} });
      expect(reply.status).to.equal(405);
      expect(reply.headers.get('allow')).to.equal('GET, POST, DELETE');
    });

    it('answers 500 with a JSON-RPC error body when processing fails, and keeps serving', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      const reply = await s.request('tools/call', { name: 'bug', arguments: {} }, { id: 77 });
      expect(reply.status).to.equal(500);
      expect(reply.json).to.deep.equal({ jsonrpc: '2.0', id: 77, error: { code: -32603, message: 'Internal error' } });
      expect(reply.text).to.not.include('Cannot read');
      expect((await s.request('ping')).status).to.equal(200);
    });
  });

  describe('tools', () => {
    let s: RawSession;
    before(async () => {
      s = new RawSession(url, '2025-11-25');
      await s.initialize();
    });

    it('lists every enabled tool with overrides applied, in display order', async () => {
      const { result } = responseOf(await s.request('tools/list'));
      const names = result.tools.map((x: { name: string }) => x.name);
      expect(names.slice(0, 2)).to.deep.equal(['echo', 'file_bug']);
      expect(names).to.not.include('list_issues');
      expect(names).to.not.include('create_issue');
      const fileBug = result.tools[1];
      expect(fileBug).to.include({ title: 'File a bug', description: 'Files a bug in the app repo' });
      expect(fileBug.annotations).to.deep.equal({ destructiveHint: false });
      expect(Object.keys(fileBug.inputSchema.properties)).to.deep.equal(['title', 'label']);
      expect(fileBug.inputSchema.required).to.deep.equal(['title']);
      expect(fileBug.inputSchema.properties.label.default).to.equal('triage');
      expect(result).to.not.have.property('nextCursor');
    });

    it('calls a renamed tool by its new name: the upstream gets its real name, defaults merged, pinned enforced', async () => {
      const before = upstreams.calls.length;
      const reply = await s.call('file_bug', { title: 'Crash on start' });
      expect(reply.result.isError).to.equal(undefined);
      const seen = upstreams.calls.slice(before);
      expect(seen).to.have.length(1);
      expect(seen[0]).to.deep.include({ serverId, tool: 'create_issue' });
      expect(seen[0]!.args).to.deep.equal({ label: 'triage', title: 'Crash on start', repo: 'acme/app' });
      const overridden = await s.call('file_bug', { title: 'x', label: 'p1' });
      expect(overridden.result).to.not.have.property('isError');
      expect(upstreams.calls.at(-1)!.args).to.deep.equal({ label: 'p1', title: 'x', repo: 'acme/app' });
    });

    it('refuses a pinned or hidden argument from the caller with an isError result saying which, by the bundle name; the upstream is not called', async () => {
      const before = upstreams.calls.length;
      const pinned = await s.call('file_bug', { title: 'x', repo: 'evil/fork' });
      expect(pinned.result).to.deep.equal({
        content: [
          {
            type: 'text',
            text: 'Argument "repo" of tool file_bug is pinned by the bundle to a fixed value and cannot be set by the caller',
          },
        ],
        isError: true,
      });
      const hidden = await s.call('file_bug', { title: 'x', internal: true });
      expect(hidden.result).to.deep.equal({
        content: [{ type: 'text', text: 'Argument "internal" of tool file_bug is hidden by the bundle and cannot be set by the caller' }],
        isError: true,
      });
      expect(upstreams.calls.length).to.equal(before);
    });

    it('answers -32602 for an unknown tool, the real name of a renamed tool, and a disabled tool', async () => {
      for (const name of ['nope', 'create_issue', 'list_issues']) {
        const reply = await s.call(name);
        expect(reply.error.code).to.equal(-32602);
      }
    });

    it('passes a tool failure through as an isError result', async () => {
      const reply = await s.call('fail');
      expect(reply.result).to.deep.equal({ content: [{ type: 'text', text: 'the tool failed' }], isError: true });
    });

    it('streams progress as notifications/progress with the caller token, increasing, then the result (SSE)', async () => {
      const reply = await s.request('tools/call', { name: 'progress', arguments: {}, _meta: { progressToken: 'tok-1' } });
      expect(reply.contentType).to.include('text/event-stream');
      const progress = reply.events.filter((e) => e.method === 'notifications/progress');
      expect(progress.map((e) => e.params.progress)).to.deep.equal([1, 2, 3]);
      expect(progress.every((e) => e.params.progressToken === 'tok-1')).to.equal(true);
      expect(reply.events.at(-1).result.content[0].text).to.equal('done');
    });

    it('answers a slow call as an SSE stream', async () => {
      const reply = await s.request('tools/call', { name: 'slow', arguments: { ms: 300 } });
      expect(reply.contentType).to.include('text/event-stream');
      expect(responseOf(reply).result.content[0].text).to.equal('slow done');
    });

    it('cancels the upstream call on notifications/cancelled', async () => {
      const before = upstreams.calls.length;
      const pending = s.request('tools/call', { name: 'slow', arguments: { ms: 5000 } }, { id: 4242 });
      while (upstreams.calls.length === before) await new Promise((r) => setTimeout(r, 5));
      expect((await s.notify('notifications/cancelled', { requestId: 4242, reason: 'user' })).status).to.equal(202);
      const reply = await pending;
      expect(upstreams.calls.at(-1)!.aborted).to.equal(true);
      // The protocol: no response for a cancelled request (the stream ends without one).
      expect(reply.contentType).to.include('text/event-stream');
      expect(responseOf(reply)).to.equal(undefined);
    });

    it('records every call off the request path', async () => {
      await s.call('echo', { hello: 'records' });
      await s.call('fail');
      await t.server.services.callRecorder.flush();
      const rows = await t.server.services.stores.callRecords.recent({ limit: 50, bundleId: bundle.id });
      const echo = rows.find((r) => r.tool_name === 'echo');
      expect(echo).to.include({
        endpoint: 'bundle',
        server_id: serverId,
        tool_id: tools.echo!.id,
        status: 'ok',
        user_id: null,
        error: null,
      });
      expect(echo!.latency_ms).to.be.a('number').and.at.least(0);
      expect(rows.find((r) => r.tool_name === 'fail')).to.include({ status: 'tool_error' });
      // The renamed tool is recorded under its real name; calls refused for the caller's mistake (a
      // pinned argument) as rejected, never as an error of the upstream server.
      const statuses = rows.filter((r) => r.tool_name === 'create_issue').map((r) => r.status);
      expect(statuses).to.include('ok').and.to.include('rejected');
      expect(statuses).to.not.include('tool_error');
      const rollup = await t.server.services.db
        .knex('call_rollups')
        .where({ server_id: serverId })
        .sum({ calls: 'calls', errors: 'errors' })
        .first();
      const serverErrors = rows.filter((r) => r.server_id === serverId && !['ok', 'rejected'].includes(r.status)).length;
      expect(Number(rollup!.errors)).to.equal(serverErrors);
      expect(Number(rollup!.calls)).to.equal(rows.filter((r) => r.server_id === serverId).length);
    });
  });

  describe('pagination', () => {
    it('pages a long tools/list with opaque cursors and rejects a bad cursor', async () => {
      const paged = await startTestServer({ start: { upstreams, mcp: { toolsPageSize: 3 } } });
      try {
        const { tools: many } = putFixtureServer(
          paged.server.services.catalog,
          'many',
          Array.from({ length: 7 }, (_, i) => ({ name: `tool_${i}` })),
        );
        const created = await paged.owner.post('/api/v1/bundles', {
          name: 'Many',
          tools: Object.values(many).map((x) => ({ tool_id: x.id })),
        });
        const ps = new RawSession(`${paged.url}/mcp/bundle/${created.body.bundle_key}`, '2025-11-25');
        await ps.initialize();
        const names: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const { result } = responseOf(await ps.request('tools/list', cursor ? { cursor } : {}));
          names.push(...result.tools.map((x: { name: string }) => x.name));
          cursor = result.nextCursor;
          pages += 1;
        } while (cursor);
        expect(pages).to.equal(3);
        expect(names).to.deep.equal(Array.from({ length: 7 }, (_, i) => `tool_${i}`));
        const bad = responseOf(await ps.request('tools/list', { cursor: 'garbage' }));
        expect(bad.error.code).to.equal(-32602);
      } finally {
        await paged.stop();
      }
    });
  });

  describe('resources and prompts of the bundle servers', () => {
    it('lists and reads resources and templates, lists and gets prompts', async () => {
      const s = new RawSession(url, '2025-11-25');
      await s.initialize();
      const resources = responseOf(await s.request('resources/list')).result.resources;
      expect(resources).to.deep.equal([{ uri: 'test://github/static', name: 'github-static', mimeType: 'text/plain' }]);
      const templates = responseOf(await s.request('resources/templates/list')).result.resourceTemplates;
      expect(templates[0].uriTemplate).to.equal('test://github/items/{id}');
      const read = responseOf(await s.request('resources/read', { uri: 'test://github/items/42' })).result;
      expect(read.contents[0].text).to.equal(`content of test://github/items/42 from ${serverId}`);
      const missing = responseOf(await s.request('resources/read', { uri: 'file:///etc/passwd' }));
      expect(missing.error.code).to.equal(-32002);
      const prompts = responseOf(await s.request('prompts/list')).result.prompts;
      expect(prompts[0]).to.include({ name: 'github_prompt' });
      const got = responseOf(await s.request('prompts/get', { name: 'github_prompt', arguments: { topic: 'x' } })).result;
      expect(got.messages[0].content.text).to.equal('github_prompt: {"topic":"x"}');
      expect(responseOf(await s.request('prompts/get', { name: 'nope' })).error.code).to.equal(-32602);
    });
  });

  describe('GET stream', () => {
    it('sends notifications/tools/list_changed when the bundle or the catalog changes', async () => {
      const created = (await t.owner.post('/api/v1/bundles', { name: 'Streamed', tools: [{ tool_id: tools.echo!.id }] })).body;
      const surl = `${t.url}/mcp/bundle/${created.bundle_key}`;
      const s = new RawSession(surl, '2025-11-25');
      await s.initialize();
      const controller = new AbortController();
      const res = await fetch(surl, { headers: { accept: 'text/event-stream', ...s.headers() }, signal: controller.signal });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.include('text/event-stream');
      const reader = res.body!.getReader();
      const readUntil = async (needle: string) => {
        let text = '';
        while (!text.includes(needle)) {
          const { value, done } = await reader.read();
          if (done) break;
          text += Buffer.from(value).toString('utf8');
        }
        return text;
      };
      await readUntil('stream open');
      await t.owner.put(`/api/v1/bundles/${created.id}/tools/${tools.echo!.id}/override`, { name: 'echo2' });
      expect(await readUntil('list_changed')).to.include('"method":"notifications/tools/list_changed"');
      t.server.services.catalog.patchServer(serverId, { name: 'github' });
      expect(await readUntil('list_changed')).to.include('notifications/tools/list_changed');
      controller.abort();
    });

    it('answers 400 without a session, 406 without text/event-stream', async () => {
      expect((await mcpFetch(url, { method: 'GET', headers: { accept: 'text/event-stream' } })).status).to.equal(400);
      expect((await mcpFetch(url, { method: 'GET', headers: { accept: 'application/json' } })).status).to.equal(406);
    });
  });

  describe('GET /mcp/bundle/{bundle_key}/info', () => {
    it('describes the bundle: name, tool count, endpoint, protocol versions', async () => {
      const res = await t.anon.get(`/mcp/bundle/${bundle.bundle_key}/info`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        name: 'Main bundle',
        description: 'Use file_bug to report bugs.',
        tool_count: 2 + FIXTURE_TOOLS.length - 1,
        endpoint: url,
        protocol_versions: ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'],
        server_version: '0.1.0',
      });
    });

    it('answers 404 ErrorResponse for an unknown key', async () => {
      const res = await t.anon.get('/mcp/bundle/nope/info');
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('not_found');
    });
  });

  describe('protocol 2026-07-28 (stateless)', () => {
    const post = (method: string, params: Record<string, unknown> = {}, tweak?: (h: Record<string, string>, b: any) => void) => {
      const { headers, body } = modernRequest(method, params);
      tweak?.(headers, body);
      return mcpFetch(url, { body, headers });
    };

    it('answers server/discover with versions, capabilities and instructions, without a session', async () => {
      const reply = await post('server/discover');
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('mcp-session-id')).to.equal(null);
      const { result } = reply.json;
      expect(result.supportedVersions).to.include('2026-07-28');
      expect(result.capabilities.tools).to.deep.equal({ listChanged: true });
      expect(result.instructions).to.equal('Use file_bug to report bugs.');
      expect(result).to.include({ resultType: 'complete', cacheScope: 'private' });
      expect(result.ttlMs).to.be.a('number');
    });

    it('lists tools with resultType and cache hints, and calls one by its override name', async () => {
      const list = (await post('tools/list')).json.result;
      expect(list).to.include({ resultType: 'complete' });
      expect(list.tools[1].name).to.equal('file_bug');
      const before = upstreams.calls.length;
      const call = await post('tools/call', { name: 'file_bug', arguments: { title: 'modern' } });
      expect(call.status).to.equal(200);
      expect(call.json.result).to.include({ resultType: 'complete' });
      expect(call.json.result).to.not.have.property('ttlMs');
      expect(upstreams.calls.slice(before)[0]!.args).to.deep.equal({ label: 'triage', title: 'modern', repo: 'acme/app' });
    });

    it('answers 400 (-32020) when MCP-Protocol-Version, Mcp-Method or Mcp-Name is missing or differs from the body', async () => {
      const cases: [string, (h: Record<string, string>) => void][] = [
        ['version header missing', (h) => delete h['mcp-protocol-version']],
        ['method differs', (h) => (h['mcp-method'] = 'tools/list')],
        ['method missing', (h) => delete h['mcp-method']],
        ['name differs', (h) => (h['mcp-name'] = 'echo')],
        ['name missing', (h) => delete h['mcp-name']],
      ];
      for (const [what, tweak] of cases) {
        const reply = await post('tools/call', { name: 'file_bug', arguments: { title: 'x' } }, tweak);
        expect(reply.status, what).to.equal(400);
        expect(reply.json.error.code, what).to.equal(-32020);
      }
    });

    it('answers 400 (-32022) with the supported versions for an unsupported _meta version', async () => {
      const reply = await post('tools/list', {}, (h, b) => {
        h['mcp-protocol-version'] = '2027-01-01';
        b.params._meta['io.modelcontextprotocol/protocolVersion'] = '2027-01-01';
      });
      expect(reply.status).to.equal(400);
      expect(reply.json.error.code).to.equal(-32022);
      expect(reply.json.error.data).to.deep.equal({
        supported: ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'],
        requested: '2027-01-01',
      });
    });

    it('answers 400 (-32602) when the per-request _meta or its required fields are missing', async () => {
      const cases: [string, (h: Record<string, string>, b: any) => void][] = [
        ['no _meta', (_h, b) => delete b.params._meta],
        ['no protocol version', (_h, b) => delete b.params._meta['io.modelcontextprotocol/protocolVersion']],
        ['no client capabilities', (_h, b) => delete b.params._meta['io.modelcontextprotocol/clientCapabilities']],
      ];
      for (const [what, tweak] of cases) {
        const reply = await post('tools/list', {}, tweak);
        expect(reply.status, what).to.equal(400);
        expect(reply.json.error.code, what).to.equal(-32602);
      }
    });

    it('answers 400 (-32020), not -32022, when the header and _meta versions disagree', async () => {
      const reply = await post('tools/list', {}, (_h, b) => {
        b.params._meta['io.modelcontextprotocol/protocolVersion'] = '2025-11-25';
      });
      expect(reply.status).to.equal(400);
      expect(reply.json.error.code).to.equal(-32020);
    });

    it('answers 404 (-32601) to initialize and ping, which the stateless revision removed', async () => {
      for (const method of ['initialize', 'ping']) {
        const reply = await post(
          method,
          method === 'initialize' ? { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'x', version: '1' } } : {},
        );
        expect(reply.status, method).to.equal(404);
        expect(reply.json.error.code, method).to.equal(-32601);
      }
    });

    it('answers 404 (-32601) for an unknown method', async () => {
      const reply = await post('nope/never');
      expect(reply.status).to.equal(404);
      expect(reply.json.error.code).to.equal(-32601);
    });

    it('reports an unknown resource as -32602', async () => {
      const reply = await post('resources/read', { uri: 'file:///nothing' });
      expect(reply.json.error.code).to.equal(-32602);
    });

    it('answers 405 to GET and DELETE, and 400 to a batch', async () => {
      const h = { 'mcp-protocol-version': '2026-07-28', accept: ACCEPT_BOTH };
      expect((await mcpFetch(url, { method: 'GET', headers: h })).status).to.equal(405);
      expect((await mcpFetch(url, { method: 'DELETE', headers: h })).status).to.equal(405);
      const { body } = modernRequest('ping');
      const batch = await mcpFetch(url, { body: [body, body], headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'ping' } });
      expect(batch.status).to.equal(400);
    });

    it('cancels the upstream call when the caller closes the stream', async () => {
      const before = upstreams.calls.length;
      const controller = new AbortController();
      const { headers, body } = modernRequest('tools/call', { name: 'slow', arguments: { ms: 5000 } });
      const pending = fetch(url, {
        method: 'POST',
        headers: { ...headers, accept: ACCEPT_BOTH, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: controller.signal,
      }).catch(() => undefined);
      while (upstreams.calls.length === before) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      await pending;
      const seen = upstreams.calls[before]!;
      for (let i = 0; i < 100 && !seen.aborted; i++) await new Promise((r) => setTimeout(r, 10));
      expect(seen.aborted).to.equal(true);
    });
  });
});
