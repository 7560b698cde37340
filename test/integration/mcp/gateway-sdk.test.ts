import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startEmbeddingServer, type EmbeddingServer } from '../../helpers/embedding-server.js';
import { createUser, type TestUser } from '../../helpers/identity.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { putFixtureServer, schema, TestUpstreams } from '../../helpers/test-upstreams.js';

/** An SDK client on `/mcp/gateway` with the user's key, asking for `version`. */
async function connect(url: string, key: string, version = '2025-11-25') {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    if ('method' in message && message.method === 'initialize')
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    return send(message, options);
  };
  const client = new Client({ name: 'sdk-gateway-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function closeClient(c: { client: Client; transport: StreamableHTTPClientTransport }): Promise<void> {
  await c.transport.terminateSession().catch(() => undefined);
  await c.client.close();
}

/** Polls until `check` holds (background work: call records, embeddings). */
async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('/mcp/gateway with the MCP SDK client', () => {
  let t: TestServer;
  let upstreams: TestUpstreams;
  let url: string;
  let user: TestUser;
  let embeddings: EmbeddingServer;

  before(async () => {
    upstreams = new TestUpstreams();
    embeddings = await startEmbeddingServer({ dimensions: 64 });
    t = await startTestServer({
      env: { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*' },
      start: { upstreams, callRecorder: { flushIntervalMs: 50 } },
    });
    url = `${t.url}/mcp/gateway`;
    user = await createUser(t, 'admin');
    const gh = putFixtureServer(t.server.services.catalog, 'github', [
      {
        name: 'create_issue',
        description: 'Open a new issue in a repository',
        inputSchema: schema({ title: { type: 'string' }, repo: { type: 'string' } }, ['title', 'repo']),
      },
      { name: 'merge_pull_request', description: 'Merge a pull request' },
      { name: 'progress', description: 'Reports progress while it works' },
      { name: 'hang', description: 'Never answers' },
    ]);
    const mail = putFixtureServer(t.server.services.catalog, 'mail', [
      { name: 'send_email', description: 'Send an email message to a recipient' },
      { name: 'create_issue', description: 'File a support ticket' },
    ]);
    await t.owner.post('/api/v1/bundles', {
      name: 'Dev',
      tools: [
        { tool_id: gh.tools.create_issue!.id, override: { pinned: { repo: 'acme/app' } } },
        { tool_id: gh.tools.merge_pull_request!.id },
        { tool_id: gh.tools.progress!.id },
        { tool_id: gh.tools.hang!.id },
      ],
    });
    await t.owner.post('/api/v1/bundles', {
      name: 'Support',
      tools: [{ tool_id: mail.tools.send_email!.id }, { tool_id: mail.tools.create_issue!.id }],
    });
  });
  after(async () => {
    await t?.stop();
    await embeddings?.close();
  });

  describe('direct mode', () => {
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      it(`lists every tool with unique names and calls one (${version})`, async () => {
        const c = await connect(url, user.key, version);
        try {
          expect(c.transport.protocolVersion).to.equal(version);
          expect(c.client.getServerCapabilities()?.tools?.listChanged).to.equal(true);
          const { tools } = await c.client.listTools();
          expect(tools.map((x) => x.name)).to.have.members([
            'dev__create_issue',
            'merge_pull_request',
            'progress',
            'hang',
            'send_email',
            'support__create_issue',
          ]);
          // The pinned argument is gone from the published schema, as on the bundle endpoint.
          expect(Object.keys(tools.find((x) => x.name === 'dev__create_issue')!.inputSchema.properties ?? {})).to.deep.equal(['title']);
          const before = upstreams.calls.length;
          const result = await c.client.callTool({ name: 'dev__create_issue', arguments: { title: 'Bug' } });
          expect(result.isError).to.not.equal(true);
          expect(upstreams.calls.slice(before).map((x) => [x.tool, x.args])).to.deep.equal([
            ['create_issue', { title: 'Bug', repo: 'acme/app' }],
          ]);
        } finally {
          await closeClient(c);
        }
      });
    }
  });

  describe('search_execute mode', () => {
    let c: { client: Client; transport: StreamableHTTPClientTransport };
    before(async () => {
      expect(
        (await user.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute', search_result_limit: 3 })).status,
      ).to.equal(200);
      c = await connect(url, user.key);
    });
    after(() => closeClient(c));

    it('lists exactly search and execute', async () => {
      const { tools } = await c.client.listTools();
      expect(tools.map((x) => x.name)).to.deep.equal(['search', 'execute']);
      expect(tools[0]!.inputSchema.properties!.limit).to.deep.include({ maximum: 3 });
      expect(c.client.getInstructions()).to.match(/search/);
    });

    it('finds tools by what they do, with name, description, input schema and score, keyword-only without an embedding provider', async () => {
      const result = await c.client.callTool({ name: 'search', arguments: { query: 'send an email' } });
      const found = (result.structuredContent as { tools: any[] }).tools;
      expect(found.length).to.be.within(1, 3);
      expect(found[0]).to.include({ name: 'send_email', description: 'Send an email message to a recipient' });
      expect(found[0].inputSchema).to.be.an('object');
      expect(found[0].score).to.be.a('number');
      expect(result._meta).to.deep.equal({ 'io.toolgate/search': { mode: 'keyword', keyword_only: true, reason: 'no_embedder' } });
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).to.deep.equal({ tools: found });
    });

    it('executes a found tool by its gateway name, with the bundle overrides applied', async () => {
      const before = upstreams.calls.length;
      const result = await c.client.callTool({
        name: 'execute',
        arguments: { name: 'dev__create_issue', arguments: { title: 'From search' } },
      });
      expect(result.isError).to.not.equal(true);
      expect(upstreams.calls.slice(before).map((x) => [x.tool, x.args])).to.deep.equal([
        ['create_issue', { title: 'From search', repo: 'acme/app' }],
      ]);
    });

    it('passes progress through execute', async () => {
      const seen: number[] = [];
      const result = await c.client.callTool({ name: 'execute', arguments: { name: 'progress', arguments: {} } }, undefined, {
        onprogress: (p) => seen.push(p.progress),
      });
      expect(seen).to.deep.equal([1, 2, 3]);
      expect(result.content).to.deep.equal([{ type: 'text', text: 'done' }]);
    });

    it('passes cancellation through execute: the upstream call is aborted and recorded as cancelled', async () => {
      const before = upstreams.calls.length;
      const controller = new AbortController();
      const pending = c.client.callTool({ name: 'execute', arguments: { name: 'hang' } }, undefined, { signal: controller.signal });
      await waitFor('the upstream call', () => upstreams.calls.length > before);
      controller.abort();
      let error: unknown;
      try {
        await pending;
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(Error);
      await waitFor('the abort upstream', () => upstreams.calls[before]!.aborted);
      await waitFor('the call record', async () => {
        await t.server.services.callRecorder.flush();
        const rows = await t.server.services.db
          .knex('call_records')
          .where({ endpoint: 'gateway', tool_name: 'hang', user_id: user.id, status: 'cancelled' });
        return rows.length === 1;
      });
    });

    it('cannot call a real tool directly by name', async () => {
      let error: unknown;
      try {
        await c.client.callTool({ name: 'send_email', arguments: {} });
      } catch (err) {
        error = err;
      }
      expect((error as { code?: number }).code).to.equal(-32602);
    });

    it('hears list_changed when the mode changes, and then lists every tool', async () => {
      let heard = false;
      c.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heard = true;
      });
      // The SDK opens its GET stream on its own after initialize; change the settings until the stream hears it.
      for (let i = 0; i < 50 && !heard; i++) {
        await user.client.put('/api/v1/users/me/gateway-settings', { mode: i % 2 === 0 ? 'direct' : 'search_execute' });
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(heard).to.equal(true);
      await user.client.put('/api/v1/users/me/gateway-settings', { mode: 'direct' });
      expect((await c.client.listTools()).tools).to.have.length(6);
      await user.client.put('/api/v1/users/me/gateway-settings', { mode: 'search_execute' });
    });
  });

  describe('hybrid search with an embedding provider', () => {
    it('fuses keyword and embedding ranks once the tools are embedded, and says so in _meta', async () => {
      const created = await t.owner.post('/api/v1/settings/providers', {
        provider_type: 'embedding',
        provider: 'openai',
        model: 'hash-64',
        endpoint: embeddings.url,
        api_key: 'sk-test-embeddings',
      });
      expect(created.status).to.equal(201);
      const search = t.server.mcp.search;
      await waitFor('the embedder', () => search.embeddingStatus().model !== null);
      await search.whenEmbedded();
      expect(search.embeddingStatus().embedded).to.be.greaterThan(0);
      const c = await connect(url, user.key);
      try {
        const result = await c.client.callTool({ name: 'search', arguments: { query: 'merge the pull request', limit: 2 } });
        expect(result._meta).to.deep.equal({ 'io.toolgate/search': { mode: 'hybrid', keyword_only: false } });
        const found = (result.structuredContent as { tools: any[] }).tools;
        expect(found[0].name).to.equal('merge_pull_request');
        expect(found).to.have.length.at.most(2);
      } finally {
        await closeClient(c);
      }
    });

    it('drops the cached embeddings of the previous model once another embedding model becomes active', async () => {
      const search = t.server.mcp.search;
      const knex = t.server.services.db.knex;
      const modelCount = async (model: string) =>
        Number((await knex('embedding_cache').where({ model }).count<{ n: string | number }[]>({ n: '*' }))[0]!.n);
      const before = search.embeddingStatus().model!;
      expect(await modelCount(before)).to.be.greaterThan(0);
      const created = await t.owner.post('/api/v1/settings/providers', {
        provider_type: 'embedding',
        provider: 'openai',
        model: 'hash-64-next',
        endpoint: embeddings.url,
        api_key: 'sk-test-embeddings',
        is_active: true,
      });
      expect(created.status).to.equal(201);
      await waitFor('the new embedder', () => ![null, before].includes(search.embeddingStatus().model));
      await search.whenEmbedded();
      const after = search.embeddingStatus().model!;
      await waitFor('the old model to go', async () => (await modelCount(before)) === 0);
      expect(await modelCount(after)).to.be.greaterThan(0);
    });
  });
});
