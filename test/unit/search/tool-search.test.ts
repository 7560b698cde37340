import { expect } from 'chai';
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/logger.js';
import { MemoryEmbeddingCache, type Embedder } from '../../../src/search/embedding.js';
import { toolDocumentId, toToolDocument, type ToolDocument } from '../../../src/search/tool-document.js';
import { ToolSearch, type ToolSearchOptions } from '../../../src/search/tool-search.js';
import { openAiEmbedder, startEmbeddingServer, type EmbeddingServer } from '../../helpers/embedding-server.js';

const BUNDLE = '5b0a4c0e-0000-4000-8000-000000000001';

function doc(toolId: string, name: string, description: string, serverName: string, bundleId = BUNDLE): ToolDocument {
  return toToolDocument({ id: toolDocumentId(bundleId, toolId), name, description, serverName, inputSchema: { type: 'object' } });
}

const DOCS: ToolDocument[] = [
  doc('t1', 'create_issue', 'Create a new issue in a GitHub repository', 'github'),
  doc('t2', 'list_issues', 'List issues in a GitHub repository', 'github'),
  doc('t3', 'read_file', 'Read the complete contents of a file', 'filesystem'),
  doc('t4', 'write_file', 'Create or overwrite a file with new content', 'filesystem'),
  doc('t5', 'browser_take_screenshot', 'Take a screenshot of the current page', 'playwright'),
  doc('t6', 'browser_navigate', 'Navigate to a URL', 'playwright'),
  doc('t7', 'slack_post_message', 'Post a new message to a Slack channel', 'slack'),
  doc('t8', 'query', 'Run a read-only SQL query', 'postgres'),
];
const ALL = new Set(DOCS.map((d) => d.id));

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

/** Counts the texts an embedder was asked for (documents and queries). */
function counting(inner: Embedder): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    model: inner.model,
    texts,
    embed(batch, signal) {
      texts.push(...batch);
      return inner.embed(batch, signal);
    },
  };
}

describe('ToolSearch', () => {
  let server: EmbeddingServer;
  const searches: ToolSearch[] = [];

  before(async () => {
    server = await startEmbeddingServer({ dimensions: 256, apiKey: 'sk-test' });
  });
  after(async () => {
    await server.close();
  });
  afterEach(() => {
    server.failNext(0);
    server.setDelay(0);
    server.setHang(false);
    for (const s of searches.splice(0)) s.close();
  });

  function make(options: Partial<ToolSearchOptions> = {}) {
    const { logger, lines } = captureLogger();
    const embedder = counting(openAiEmbedder(server.url, 'hash-256', { apiKey: 'sk-test' }));
    const search = new ToolSearch({ logger, embedder, queryTimeoutMs: 2000, retryBaseMs: 50, ...options });
    searches.push(search);
    for (const d of DOCS) search.upsert(d);
    return { search, embedder, lines };
  }

  it('answers keyword-only without an embedder, and says so', async () => {
    const { logger } = captureLogger();
    const search = new ToolSearch({ logger });
    for (const d of DOCS) search.upsert(d);
    const result = await search.search({ query: 'file a new github issue', allowed: ALL, limit: 3 });
    expect(result.mode).to.equal('keyword');
    expect(result.reason).to.equal('no_embedder');
    expect(result.hits[0]!.id).to.equal(toolDocumentId(BUNDLE, 't1'));
  });

  it('embeds in the background, never while upserting, in batches of changed texts only', async () => {
    const { search, embedder } = make({ batchSize: 3 });
    expect(embedder.texts).to.have.length(0); // upsert returned before any embedding started
    const early = await search.search({ query: 'screenshot', allowed: ALL, limit: 3 });
    expect(early).to.include({ mode: 'keyword', reason: 'not_embedded' });
    await search.whenEmbedded();
    expect(embedder.texts).to.have.length(DOCS.length);
    expect(search.embeddingStatus()).to.include({ embedded: DOCS.length, pending: 0 });

    // Unchanged documents: nothing to embed. One changed text: exactly that text.
    for (const d of DOCS) search.upsert(d);
    search.upsert(doc('t8', 'query', 'Run a read-only SQL query against PostgreSQL', 'postgres'));
    await search.whenEmbedded();
    expect(embedder.texts.slice(DOCS.length)).to.have.length(1);
    expect(embedder.texts.at(-1)).to.contain('against PostgreSQL');
  });

  it('answers hybrid once embedded, fusing both rankings', async () => {
    const { search } = make();
    await search.whenEmbedded();
    const result = await search.search({ query: 'take a screenshot of the page', allowed: ALL, limit: 3 });
    expect(result.mode).to.equal('hybrid');
    expect(result).to.not.have.property('reason');
    expect(result.hits[0]!.id).to.equal(toolDocumentId(BUNDLE, 't5'));
    // A misspelling BM25 cannot match still finds the tool through the embedding (shared trigrams).
    const typo = await search.search({ query: 'screnshots', allowed: ALL, limit: 3 });
    expect(search.keywordSearch('screnshots', ALL, 3)).to.deep.equal([]);
    expect(typo.mode).to.equal('hybrid');
    expect(typo.hits[0]!.id).to.equal(toolDocumentId(BUNDLE, 't5'));
  });

  it('reuses cached embeddings: a new index over the same cache embeds no document again', async () => {
    const cache = new MemoryEmbeddingCache();
    const first = make({ cache });
    await first.search.whenEmbedded();
    expect(first.embedder.texts).to.have.length(DOCS.length);
    const second = make({ cache });
    await second.search.whenEmbedded();
    expect(second.embedder.texts).to.have.length(0);
    expect(second.search.embeddingStatus().embedded).to.equal(DOCS.length);
    expect((await second.search.search({ query: 'slack message', allowed: ALL, limit: 1 })).mode).to.equal('hybrid');
  });

  it('embeds a text shared by two bundles once', async () => {
    const { search, embedder } = make();
    await search.whenEmbedded();
    const before = embedder.texts.length;
    search.upsert(doc('t1', 'create_issue', 'Create a new issue in a GitHub repository', 'github', 'other-bundle'));
    await search.whenEmbedded();
    expect(embedder.texts.length).to.equal(before);
    expect(search.embeddingStatus().embedded).to.equal(DOCS.length + 1);
  });

  it('falls back to keyword results when the query embedding fails, and logs it', async () => {
    const { search, lines } = make();
    await search.whenEmbedded();
    server.failNext(1, 503);
    const result = await search.search({ query: 'list github issues', allowed: ALL, limit: 2 });
    expect(result).to.include({ mode: 'keyword', reason: 'embedding_failed' });
    expect(result.hits[0]!.id).to.equal(toolDocumentId(BUNDLE, 't2'));
    expect(
      lines.some((l) => l.level === 40 && String(l.msg).includes('query embedding failed') && String(l.error).includes('503')),
    ).to.equal(true);
    // The provider is back: hybrid again.
    expect((await search.search({ query: 'list github issues', allowed: ALL, limit: 2 })).mode).to.equal('hybrid');
  });

  it('falls back to keyword results when the query embedding times out', async () => {
    const { search, lines } = make({ queryTimeoutMs: 150 });
    await search.whenEmbedded();
    server.setHang(true);
    const started = Date.now();
    const result = await search.search({ query: 'navigate to a url', allowed: ALL, limit: 2 });
    expect(Date.now() - started).to.be.below(1500);
    expect(result).to.include({ mode: 'keyword', reason: 'embedding_timeout' });
    expect(result.hits[0]!.id).to.equal(toolDocumentId(BUNDLE, 't6'));
    expect(lines.some((l) => String(l.error).includes('TimeoutError'))).to.equal(true);
  });

  it('falls back when the embedder answers garbage', async () => {
    const { logger } = captureLogger();
    let calls = 0;
    const good = openAiEmbedder(server.url, 'hash-256', { apiKey: 'sk-test' });
    const flaky: Embedder = {
      model: good.model,
      embed: async (texts, signal) => (++calls > 1 && texts.length === 1 ? [] : good.embed(texts, signal)),
    };
    const search = new ToolSearch({ logger, embedder: flaky });
    searches.push(search);
    for (const d of DOCS) search.upsert(d);
    await search.whenEmbedded();
    expect(await search.search({ query: 'sql', allowed: ALL, limit: 1 })).to.include({ mode: 'keyword', reason: 'embedding_failed' });
  });

  it('rejects when the caller aborts', async () => {
    const { search } = make();
    await search.whenEmbedded();
    server.setHang(true);
    const ac = new AbortController();
    const pending = search.search({ query: 'anything at all', allowed: ALL, limit: 2, signal: ac.signal });
    ac.abort(new Error('client went away'));
    let error: unknown;
    await pending.catch((e) => (error = e));
    expect((error as Error).message).to.equal('client went away');
  });

  it('retries a failed background batch with backoff, then embeds', async () => {
    server.failNext(2, 500);
    const { search, lines } = make({ retryBaseMs: 20 });
    await search.whenEmbedded(); // resolves while waiting to retry
    await new Promise((r) => setTimeout(r, 200));
    await search.whenEmbedded();
    expect(search.embeddingStatus()).to.include({ embedded: DOCS.length, pending: 0 });
    expect(lines.filter((l) => String(l.msg).includes('retrying'))).to.have.length(1); // throttled: one line per 30 s
  });

  it('re-embeds everything when the model changes, and stops using vectors without an embedder', async () => {
    const { search, embedder } = make();
    await search.whenEmbedded();
    const other = counting(openAiEmbedder(server.url, 'hash-64', { apiKey: 'sk-test', dimensions: 64 }));
    search.setEmbedder(other);
    await search.whenEmbedded();
    expect(other.texts).to.have.length(DOCS.length);
    expect(embedder.texts).to.have.length(DOCS.length);
    expect((await search.search({ query: 'write a file', allowed: ALL, limit: 1 })).mode).to.equal('hybrid');
    search.setEmbedder(null);
    expect(await search.search({ query: 'write a file', allowed: ALL, limit: 1 })).to.include({ mode: 'keyword', reason: 'no_embedder' });
  });

  it('removes documents from both indexes and replaces the whole set', async () => {
    const { search } = make();
    await search.whenEmbedded();
    expect(search.remove(toolDocumentId(BUNDLE, 't5'))).to.equal(true);
    const hits = (await search.search({ query: 'screenshot', allowed: ALL, limit: 10 })).hits.map((h) => h.id);
    expect(hits).to.not.include(toolDocumentId(BUNDLE, 't5'));
    const changes = search.replaceAll(DOCS.slice(0, 3));
    expect(changes).to.deep.equal({ upserted: 0, removed: 4 });
    expect(search.size).to.equal(3);
    expect(search.embeddingStatus().embedded).to.equal(3);
  });

  it('property: hybrid results stay inside the allowed set', async function () {
    this.timeout(60000);
    const { search } = make();
    await search.whenEmbedded();
    const queries = ['issue', 'file', 'screenshot page', 'message', 'sql query', 'create', 'navigate url', 'zzz'];
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(DOCS.map((d) => d.id)),
        fc.constantFrom(...queries),
        fc.integer({ min: 1, max: 10 }),
        async (ids, query, limit) => {
          const allowed = new Set(ids);
          const result = await search.search({ query, allowed, limit });
          expect(result.mode).to.equal('hybrid');
          expect(result.hits.length).to.be.at.most(limit);
          for (const h of result.hits) expect(allowed.has(h.id), h.id).to.equal(true);
        },
      ),
      { numRuns: 200, seed: 9 },
    );
  });
});
