import { expect } from 'chai';
import { Writable } from 'node:stream';
import { createLlmClient } from '../../../src/ai/ai-clients.js';
import { OutboundPolicy } from '../../../src/lib/outbound-policy.js';
import { createLogger } from '../../../src/logger.js';
import { llmDescriptionExpander, MemoryExpansionCache } from '../../../src/search/description-expansion.js';
import { toToolDocument } from '../../../src/search/tool-document.js';
import { ToolSearch } from '../../../src/search/tool-search.js';
import { FakeOpenAi } from '../../helpers/fake-openai.js';

const policy = new OutboundPolicy(['127.0.0.1:*']);
const KEY = 'sk-test-0123456789abcdefghijklmnop';

const geocode = (id = 'maps:geocode') =>
  toToolDocument({
    id,
    name: 'maps_geocode',
    description: 'Convert an address into geographic coordinates',
    serverName: 'maps',
    inputSchema: {},
  });
const mail = toToolDocument({
  id: 'mail:send',
  name: 'send_mail',
  description: 'Send an email to a recipient',
  serverName: 'mail',
  inputSchema: {},
});

function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { logger: createLogger({ logLevel: 'warn' }, stream), lines };
}

/** The tool texts of one chat request of the expander (one "### Tool n" section each). */
function toolTexts(body: { messages: { role: string; content: string }[] }): string[] {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  return user.split(/^### Tool \d+\n/m).slice(1);
}

describe('tool search: descriptions expanded by the LLM provider at index time', function () {
  this.timeout(30_000);
  let fake: FakeOpenAi;
  const expander = () =>
    llmDescriptionExpander(
      createLlmClient({ provider: 'openai', model: 'gpt-test', endpoint: fake.url, apiKey: KEY, config: { max_retries: 0 } }, { policy }),
    );
  // Word-vector expansion off: only the LLM's wording can connect these queries to the tools.
  const options = { keyword: { expansion: false as const } };

  before(async () => {
    fake = await new FakeOpenAi().start();
  });
  after(() => fake.stop());
  beforeEach(() => {
    fake.reset();
    fake.respond('chat', (body) => ({
      content: JSON.stringify({
        expansions: toolTexts(body).map((t) =>
          t.includes('geographic') ? 'latitude longitude whereabouts position on the globe' : 'letter',
        ),
      }),
    }));
  });

  it('finds a tool by the words of its expansion once it is indexed, and not before', async () => {
    const { logger } = captureLogger();
    const search = new ToolSearch({ logger, ...options, expander: expander() });
    search.upsert(geocode());
    search.upsert(mail);
    const all = new Set(['maps:geocode', 'mail:send']);
    expect(search.keywordSearch('whereabouts on the globe', all, 5)).to.deep.equal([]);
    await search.whenExpanded();
    expect(search.keywordSearch('whereabouts on the globe', all, 5).map((h) => h.id)).to.deep.equal(['maps:geocode']);
    // The tool's own words still rank it first; the expansion field weighs less than the description.
    expect(search.keywordSearch('geographic coordinates', all, 5)[0]?.id).to.equal('maps:geocode');
    search.close();
  });

  it('expands each distinct text once: same text in two bundles, unchanged re-feeds, and a restart with the cache', async () => {
    const { logger } = captureLogger();
    const cache = new MemoryExpansionCache();
    const first = new ToolSearch({ logger, ...options, expander: expander(), expansionCache: cache });
    first.upsert(geocode('bundle-a:geocode'));
    first.upsert(geocode('bundle-b:geocode'));
    first.upsert(mail);
    await first.whenExpanded();
    first.upsert(geocode('bundle-a:geocode'));
    await first.whenExpanded();
    const requests = fake.requestsTo('/chat/completions');
    expect(requests).to.have.length(1);
    expect(toolTexts(requests[0]!.body)).to.have.length(2);
    const both = new Set(['bundle-a:geocode', 'bundle-b:geocode']);
    expect(first.keywordSearch('whereabouts', both, 5)).to.have.length(2);
    first.close();

    const second = new ToolSearch({ logger, ...options, expander: expander(), expansionCache: cache });
    second.upsert(geocode());
    await second.whenExpanded();
    expect(fake.requestsTo('/chat/completions')).to.have.length(1);
    expect(second.keywordSearch('whereabouts', new Set(['maps:geocode']), 5)).to.have.length(1);
    second.close();
  });

  it('never calls the model on the search path', async () => {
    const { logger } = captureLogger();
    fake.reset();
    fake.respond('chat', (body) => ({ delayMs: 3000, content: JSON.stringify({ expansions: toolTexts(body).map(() => 'x') }) }));
    const search = new ToolSearch({ logger, ...options, expander: expander() });
    search.upsert(geocode());
    await new Promise((r) => setTimeout(r, 50));
    const before = fake.requestsTo('/chat/completions').length;
    const started = performance.now();
    const result = await search.search({ query: 'geographic coordinates', allowed: new Set(['maps:geocode']), limit: 5 });
    expect(performance.now() - started).to.be.lessThan(1000);
    expect(result.hits.map((h) => h.id)).to.deep.equal(['maps:geocode']);
    expect(fake.requestsTo('/chat/completions').length).to.equal(before);
    search.close();
  });

  it('indexes the tool without an expansion when the model fails, and says so in the log', async () => {
    const { logger, lines } = captureLogger();
    fake.reset();
    fake.reply('chat', { status: 500, error: { message: 'upstream exploded' } });
    const search = new ToolSearch({ logger, ...options, expander: expander() });
    search.upsert(geocode());
    await search.whenExpanded();
    const all = new Set(['maps:geocode']);
    expect(search.keywordSearch('whereabouts', all, 5)).to.deep.equal([]);
    expect(search.keywordSearch('geographic', all, 5).map((h) => h.id)).to.deep.equal(['maps:geocode']);
    expect(lines.some((l) => String(l.msg).includes('description expansion failed'))).to.equal(true);
    expect(JSON.stringify(lines)).to.not.include(KEY);
    search.close();
  });

  it('waits after a failure before asking again, and then expands what is left', async () => {
    const { logger, lines } = captureLogger();
    fake.reset();
    fake.reply('chat', { status: 500, error: { message: 'down' } });
    fake.respond('chat', (body) => ({ content: JSON.stringify({ expansions: toolTexts(body).map(() => 'whereabouts') }) }));
    const search = new ToolSearch({ logger, ...options, expander: expander(), expansionPauseMs: 300 });
    search.upsert(geocode());
    await search.whenExpanded();
    search.upsert(mail);
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.requestsTo('/chat/completions')).to.have.length(1);
    await new Promise((r) => setTimeout(r, 400));
    await search.whenExpanded();
    expect(fake.requestsTo('/chat/completions')).to.have.length(2);
    expect(search.keywordSearch('whereabouts', new Set(['maps:geocode', 'mail:send']), 5).map((h) => h.id)).to.deep.equal(['mail:send']);
    expect(lines.filter((l) => String(l.msg).includes('description expansion failed'))).to.have.length(1);
    search.close();
  });

  it('drops the expansions when the provider goes away', async () => {
    const { logger } = captureLogger();
    const search = new ToolSearch({ logger, ...options, expander: expander() });
    search.upsert(geocode());
    await search.whenExpanded();
    const all = new Set(['maps:geocode']);
    expect(search.keywordSearch('whereabouts', all, 5)).to.have.length(1);
    search.setExpander(null);
    expect(search.keywordSearch('whereabouts', all, 5)).to.deep.equal([]);
    search.close();
  });
});
