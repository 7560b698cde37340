import { expect } from 'chai';
import { toolDocumentId } from '../../../src/search/tool-document.js';
import { ApiClient } from '../../helpers/api-client.js';
import { FakeOpenAi } from '../../helpers/fake-openai.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';
import { fixtureStdio, register, waitConnected, waitFor } from '../../helpers/upstreams.js';

/** The tool texts of one chat request of the expander (one "### Tool n" section each). */
function toolTexts(body: { messages: { role: string; content: string }[] }): string[] {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  return user.split(/^### Tool \d+\n/m).slice(1);
}

describe('/mcp/gateway search: tool descriptions expanded by the LLM provider, once per text across restarts', function () {
  this.timeout(120_000);
  const env = { TOOLGATE_OUTBOUND_ALLOWLIST: '127.0.0.1:*' };
  let fake: FakeOpenAi;
  let t: TestServer | undefined;
  let reuse: { dataDir: string; schema?: string | undefined };
  let bundleId: string;
  let toolIds: Record<string, string>;
  let ownerKey: string;

  /** Document ids of the bundle's tools in the gateway's search. */
  const docIds = () => new Set(Object.values(toolIds).map((id) => toolDocumentId(bundleId, id)));
  /** Names of the bundle's tools the gateway's keyword search finds for `query`. */
  const found = (query: string): string[] => {
    const byDoc = new Map(Object.entries(toolIds).map(([name, id]) => [toolDocumentId(bundleId, id), name]));
    return t!.server.mcp.search
      .keywordSearch(query, docIds(), 10)
      .map((h) => byDoc.get(h.id)!)
      .sort();
  };
  const chats = () => fake.requestsTo('/chat/completions');

  before(async () => {
    fake = await new FakeOpenAi().start();
    // Made-up words no thesaurus knows: only the model's wording connects them to the tools.
    fake.respond('chat', (body) => ({
      content: JSON.stringify({
        expansions: toolTexts(body).map((text) =>
          text.includes('Repeat the words') ? 'frobnitz' : text.includes('echo') ? 'zorblax' : 'quimbly',
        ),
      }),
    }));
  });
  // Each step starts a server on the data of the one before (kept until the last step).
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });
  after(() => fake.stop());

  it('expands each tool text once when an LLM provider becomes active (no setting needed)', async () => {
    t = await startTestServer({ env, keepData: true });
    reuse = { dataDir: t.config.dataDir, schema: t.config.databaseSchema };
    ownerKey = t.ownerKey;
    const server = await register(t.owner, { name: 'fixture', transport: 'stdio', ...fixtureStdio() });
    await waitConnected(t.owner, server.id);
    const tools = (await t.owner.get(`/api/v1/servers/${server.id}/tools?page_size=100`)).body.items as { id: string; name: string }[];
    toolIds = Object.fromEntries(tools.filter((x) => ['echo', 'greet', 'test_simple_text'].includes(x.name)).map((x) => [x.name, x.id]));
    expect(Object.keys(toolIds).sort()).to.deep.equal(['echo', 'greet', 'test_simple_text']);
    const bundle = await t.owner.post('/api/v1/bundles', {
      name: 'expanded',
      tools: Object.values(toolIds).map((id) => ({ tool_id: id })),
    });
    expect(bundle.status).to.equal(201);
    bundleId = bundle.body.id;
    expect(chats()).to.have.length(0);

    const provider = await t.owner.post('/api/v1/settings/providers', {
      provider_type: 'llm',
      provider: 'openai',
      model: 'gpt-test',
      endpoint: fake.url,
      api_key: 'sk-test-0123456789abcdefghijklmnop',
      is_active: true,
    });
    expect(provider.status).to.equal(201);
    await waitFor('the expansions', () => found('zorblax').length === 1 && found('quimbly').length === 2);
    await t.server.mcp.search.whenExpanded();
    expect(found('zorblax')).to.deep.equal(['echo']);
    expect(chats()).to.have.length(1);
    expect(toolTexts(chats()[0]!.body)).to.have.length(3);
  });

  it('asks nothing again after a restart on the same database, and only for a changed description', async () => {
    t = await startTestServer({ env, keepData: true, reuse });
    await waitFor('the expansions from the database', () => found('zorblax').length === 1 && found('quimbly').length === 2);
    await t.server.mcp.search.whenExpanded();
    expect(chats(), 'no request after the restart').to.have.length(1);

    const changed = await new ApiClient(t.url, ownerKey).put(`/api/v1/bundles/${bundleId}/tools/${toolIds.echo}/override`, {
      description: 'Repeat the words you send, unchanged',
    });
    expect(changed.status).to.equal(200);
    await waitFor('the new expansion', () => found('frobnitz').length === 1);
    await t.server.mcp.search.whenExpanded();
    expect(found('zorblax')).to.deep.equal([]);
    expect(chats()).to.have.length(2);
    expect(toolTexts(chats()[1]!.body)).to.have.length(1);
  });

  it('TOOLGATE_SEARCH_LLM_EXPANSION=false turns it off: no request, no expanded wording in search', async () => {
    t = await startTestServer({ env: { ...env, TOOLGATE_SEARCH_LLM_EXPANSION: 'false' }, reuse });
    expect(t.config.searchLlmExpansion).to.equal(false);
    await waitFor('the bundle indexed', () => found('repeat words unchanged').includes('echo'));
    await new Promise((r) => setTimeout(r, 300));
    await t.server.mcp.search.whenExpanded();
    expect(found('frobnitz')).to.deep.equal([]);
    expect(found('quimbly')).to.deep.equal([]);
    expect(chats()).to.have.length(2);
  });
});
