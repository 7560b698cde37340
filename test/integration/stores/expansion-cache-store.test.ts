import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLlmClient } from '../../../src/ai/ai-clients.js';
import { OutboundPolicy } from '../../../src/lib/outbound-policy.js';
import { createLogger } from '../../../src/logger.js';
import { expansionHash, llmDescriptionExpander, type ExpansionCache } from '../../../src/search/description-expansion.js';
import { toToolDocument } from '../../../src/search/tool-document.js';
import { ToolSearch } from '../../../src/search/tool-search.js';
import { migrateToLatest, openDatabase, type Database } from '../../../src/stores/database.js';
import { ExpansionCacheStore } from '../../../src/stores/expansion-cache-store.js';
import { FakeOpenAi } from '../../helpers/fake-openai.js';
import { dropSchema, TEST_DATABASE_URL } from '../../helpers/test-server.js';

const logger = createLogger({ logLevel: 'silent' });

/** The tool texts of one chat request of the expander (one "### Tool n" section each). */
function toolTexts(body: { messages: { role: string; content: string }[] }): string[] {
  const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
  return user.split(/^### Tool \d+\n/m).slice(1);
}

describe('expansion_cache (ExpansionCacheStore)', function () {
  this.timeout(60000);
  const schema = `tg_exp_${process.pid}`;
  let dataDir: string;
  let db: Database;
  let store: ExpansionCacheStore;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-exp-'));
    db = openDatabase({ databaseUrl: TEST_DATABASE_URL, databaseSchema: TEST_DATABASE_URL ? schema : undefined, dataDir });
    await migrateToLatest(db, logger, { schema: TEST_DATABASE_URL ? schema : undefined });
    store = new ExpansionCacheStore(db.knex);
  });
  after(async () => {
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (TEST_DATABASE_URL) await dropSchema(TEST_DATABASE_URL, schema);
  });
  beforeEach(async () => {
    await db.knex('expansion_cache').delete();
  });

  it('stores and reads expansions by hash; missing hashes are absent', async () => {
    const a = expansionHash('m', 'alpha');
    const b = expansionHash('m', 'beta');
    await store.putMany([
      { hash: a, text: 'first wording' },
      { hash: b, text: '' },
    ]);
    const got = await store.getMany([a, b, expansionHash('m', 'gamma'), a]);
    expect(Object.fromEntries(got)).to.deep.equal({ [a]: 'first wording', [b]: '' });
    // The hash includes the model: the same text under another model is another entry.
    expect((await store.getMany([expansionHash('other', 'alpha')])).size).to.equal(0);
  });

  it('never overwrites an entry (same hash = same model and text)', async () => {
    const h = expansionHash('m', 'x');
    await store.putMany([{ hash: h, text: 'one' }]);
    await store.putMany([{ hash: h, text: 'two' }]);
    expect((await store.getMany([h])).get(h)).to.equal('one');
    expect(await store.count()).to.equal(1);
  });

  it('reads and writes more entries than one statement takes', async () => {
    const entries = Array.from({ length: 1234 }, (_, i) => ({ hash: expansionHash('m', `t${i}`), text: `words ${i}` }));
    await store.putMany(entries);
    const got = await store.getMany(entries.map((e) => e.hash));
    expect(got.size).to.equal(1234);
    expect(got.get(entries[1000]!.hash)).to.equal('words 1000');
  });

  it('is bounded: beyond its cap the oldest entries go, on the first write and then every few hundred', async () => {
    const old = Array.from({ length: 30 }, (_, i) => ({ content_hash: expansionHash('m', `old${i}`), expansion: 'o' }));
    await db.knex('expansion_cache').insert(old.map((r) => ({ ...r, created_at: new Date('2026-01-01T00:00:00Z') })));
    const capped = new ExpansionCacheStore(db.knex, 20);
    const fresh = Array.from({ length: 5 }, (_, i) => ({ hash: expansionHash('m', `new${i}`), text: 'n' }));
    await capped.putMany(fresh);
    expect(await capped.count()).to.equal(20);
    expect((await capped.getMany(fresh.map((e) => e.hash))).size, 'the newest stay').to.equal(5);
    // Later writes prune only once enough new entries have come in (a prune scans the index).
    await capped.putMany([{ hash: expansionHash('m', 'one more'), text: 'n' }]);
    expect(await capped.count()).to.equal(21);
    const many = Array.from({ length: 300 }, (_, i) => ({ hash: expansionHash('m', `many${i}`), text: 'n' }));
    await capped.putMany(many);
    expect(await capped.count()).to.equal(20);
    expect(await capped.prune()).to.equal(0);
  });

  describe('as the expansion cache of ToolSearch', () => {
    const policy = new OutboundPolicy(['127.0.0.1:*']);
    let fake: FakeOpenAi;
    const expander = () =>
      llmDescriptionExpander(
        createLlmClient(
          { provider: 'openai', model: 'gpt-test', endpoint: fake.url, apiKey: 'sk-test-0123456789abcdefghij', config: { max_retries: 0 } },
          { policy },
        ),
      );
    const tool = (i: number, description = `Does thing number ${i}`) =>
      toToolDocument({ id: `b:${i}`, name: `tool_${i}`, description, serverName: 's', inputSchema: {} });
    const options = { logger, keyword: { expansion: false as const } };

    before(async () => {
      fake = await new FakeOpenAi().start();
    });
    after(() => fake.stop());
    beforeEach(() => {
      fake.reset();
      fake.respond('chat', (body) => ({
        content: JSON.stringify({ expansions: toolTexts(body).map((t) => (t.includes('number 7') ? 'whereabouts globe' : 'misc')) }),
      }));
    });

    it('survives a restart: a new index asks the model again only for changed texts', async () => {
      const cache: ExpansionCache = store;
      const docs = Array.from({ length: 40 }, (_, i) => tool(i));
      const first = new ToolSearch({ ...options, expander: expander(), expansionCache: cache });
      for (const d of docs) first.upsert(d);
      await first.whenExpanded();
      first.close();
      expect(fake.requestsTo('/chat/completions')).to.have.length(3); // 40 texts in batches of 16
      expect(await store.count()).to.equal(40);

      // Same database (a new store object, as after a restart), one description changed.
      const second = new ToolSearch({ ...options, expander: expander(), expansionCache: new ExpansionCacheStore(db.knex) });
      for (const d of docs) second.upsert(d.id === 'b:3' ? tool(3, 'Changed wording of tool three') : d);
      await second.whenExpanded();
      const requests = fake.requestsTo('/chat/completions');
      expect(requests).to.have.length(4);
      expect(toolTexts(requests[3]!.body)).to.have.length(1);
      expect(toolTexts(requests[3]!.body)[0]).to.include('Changed wording of tool three');
      const all = new Set(docs.map((d) => d.id));
      expect(second.keywordSearch('whereabouts globe', all, 5).map((h) => h.id)).to.deep.equal(['b:7']);
      second.close();
      expect(await store.count()).to.equal(41);
    });
  });
});
