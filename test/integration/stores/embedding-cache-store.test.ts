import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../../src/logger.js';
import type { EmbeddingCache } from '../../../src/search/embedding.js';
import { contentHash, toToolDocument } from '../../../src/search/tool-document.js';
import { ToolSearch } from '../../../src/search/tool-search.js';
import { migrateToLatest, openDatabase, type Database } from '../../../src/stores/database.js';
import { bytesToVector, EmbeddingCacheStore, vectorToBytes } from '../../../src/stores/embedding-cache-store.js';
import { openAiEmbedder, startEmbeddingServer, type EmbeddingServer } from '../../helpers/embedding-server.js';
import { dropSchema, TEST_DATABASE_URL } from '../../helpers/test-server.js';

const logger = createLogger({ logLevel: 'silent' });

describe('embedding_cache (EmbeddingCacheStore)', function () {
  this.timeout(60000);
  const schema = `tg_emb_${process.pid}`;
  let dataDir: string;
  let db: Database;
  let store: EmbeddingCacheStore;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-emb-'));
    db = openDatabase({ databaseUrl: TEST_DATABASE_URL, databaseSchema: TEST_DATABASE_URL ? schema : undefined, dataDir });
    await migrateToLatest(db, logger, { schema: TEST_DATABASE_URL ? schema : undefined });
    store = new EmbeddingCacheStore(db.knex);
  });
  after(async () => {
    await db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (TEST_DATABASE_URL) await dropSchema(TEST_DATABASE_URL, schema);
  });
  beforeEach(async () => {
    await db.knex('embedding_cache').delete();
  });

  it('encodes vectors as little-endian float32 and back, bit for bit', () => {
    const v = new Float32Array([0, 1, -1, 0.1, 3.4e38, -1.5e-45, 123.456]);
    const bytes = vectorToBytes(v);
    expect(bytes).to.have.length(28);
    expect(bytes.readFloatLE(4)).to.equal(1);
    expect(Array.from(bytesToVector(bytes))).to.deep.equal(Array.from(v));
  });

  it('stores and reads vectors by content hash; missing hashes are absent', async () => {
    const a = contentHash('m', 'alpha');
    const b = contentHash('m', 'beta');
    await store.putMany([
      { hash: a, model: 'm', vector: new Float32Array([0.5, -0.25, 1]) },
      { hash: b, model: 'm', vector: new Float32Array([1, 2, 3]) },
    ]);
    const got = await store.getMany([a, b, contentHash('m', 'gamma'), a]);
    expect([...got.keys()].sort()).to.deep.equal([a, b].sort());
    expect(Array.from(got.get(a)!)).to.deep.equal([0.5, -0.25, 1]);
    const row = await db.knex('embedding_cache').where({ content_hash: a }).first();
    expect(row).to.include({ model: 'm', dimensions: 3 });
  });

  it('never overwrites an entry (same hash = same model and text)', async () => {
    const h = contentHash('m', 'x');
    await store.putMany([{ hash: h, model: 'm', vector: new Float32Array([1, 1]) }]);
    await store.putMany([{ hash: h, model: 'm', vector: new Float32Array([9, 9]) }]);
    expect(Array.from((await store.getMany([h])).get(h)!)).to.deep.equal([1, 1]);
    expect(await store.count()).to.equal(1);
  });

  it('reads and writes more entries than one statement takes', async () => {
    const entries = Array.from({ length: 1234 }, (_, i) => ({
      hash: contentHash('m', `t${i}`),
      model: 'm',
      vector: new Float32Array([i, -i]),
    }));
    await store.putMany(entries);
    const got = await store.getMany(entries.map((e) => e.hash));
    expect(got.size).to.equal(1234);
    expect(Array.from(got.get(entries[1000]!.hash)!)).to.deep.equal([1000, -1000]);
  });

  it('rejects a vector whose size does not match its dimensions (table check)', async () => {
    let error: unknown;
    await db
      .knex('embedding_cache')
      .insert({ content_hash: 'bad', model: 'm', dimensions: 4, vector: Buffer.alloc(8) })
      .catch((e) => (error = e));
    expect(String(error)).to.match(/embedding_cache_vector_check/);
  });

  it('deletes the entries of other models', async () => {
    await store.putMany([
      { hash: contentHash('old', 'x'), model: 'old', vector: new Float32Array([1]) },
      { hash: contentHash('new', 'x'), model: 'new', vector: new Float32Array([1]) },
    ]);
    expect(await store.deleteOtherModels('new')).to.equal(1);
    expect(await store.count('new')).to.equal(1);
    expect(await store.count()).to.equal(1);
  });

  it('is bounded: beyond its cap the oldest entries go (any model), on the first write and then every few hundred', async () => {
    const old = Array.from({ length: 30 }, (_, i) => ({
      content_hash: contentHash(i % 2 ? 'm' : 'other', `old${i}`),
      model: i % 2 ? 'm' : 'other',
      dimensions: 1,
      vector: vectorToBytes(new Float32Array([i])),
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    }));
    await db.knex('embedding_cache').insert(old);
    const capped = new EmbeddingCacheStore(db.knex, 20);
    const fresh = Array.from({ length: 5 }, (_, i) => ({ hash: contentHash('m', `new${i}`), model: 'm', vector: new Float32Array([i]) }));
    await capped.putMany(fresh);
    expect(await capped.count()).to.equal(20);
    expect((await capped.getMany(fresh.map((e) => e.hash))).size, 'the newest stay').to.equal(5);
    // Of the 30 old entries the 15 newest stay: the 15 oldest (created first) went.
    const kept = await capped.getMany(old.map((r) => r.content_hash));
    expect([...kept.values()].map((v) => v[0]).sort((a, b) => a! - b!)).to.deep.equal(Array.from({ length: 15 }, (_, i) => i + 15));
    // Later writes prune only once enough new entries have come in (a prune scans the index).
    await capped.putMany([{ hash: contentHash('m', 'one more'), model: 'm', vector: new Float32Array([1]) }]);
    expect(await capped.count()).to.equal(21);
    const many = Array.from({ length: 300 }, (_, i) => ({ hash: contentHash('m', `many${i}`), model: 'm', vector: new Float32Array([i]) }));
    await capped.putMany(many);
    expect(await capped.count()).to.equal(20);
    expect(await capped.prune()).to.equal(0);
  });

  it('deletes more entries than one delete statement takes (a grown table, a whole model)', async () => {
    const old = Array.from({ length: 11_000 }, (_, i) => ({
      hash: contentHash('old', `t${i}`),
      model: 'old',
      vector: new Float32Array([i]),
    }));
    await store.putMany(old);
    expect(await new EmbeddingCacheStore(db.knex, 5_500).prune()).to.equal(5_500);
    expect(await store.count()).to.equal(5_500);
    await store.putMany([{ hash: contentHash('new', 'x'), model: 'new', vector: new Float32Array([1]) }]);
    expect(await store.deleteOtherModels('new')).to.equal(5_500);
    expect(await store.count()).to.equal(1);
  });

  it('drops the other models once the active model switches to another, never on the first model or on none', async () => {
    const put = (model: string) => store.putMany([{ hash: contentHash(model, 'x'), model, vector: new Float32Array([1]) }]);
    await Promise.all(['a', 'b', 'c'].map(put));
    const follower = new EmbeddingCacheStore(db.knex);
    expect(follower.followActiveModel(null), 'no model').to.equal(undefined);
    expect(follower.followActiveModel('a'), 'the first model (a restart)').to.equal(undefined);
    expect(follower.followActiveModel('a'), 'the same model').to.equal(undefined);
    expect(follower.followActiveModel(null), 'the model went away').to.equal(undefined);
    expect(await store.count()).to.equal(3);
    expect(await follower.followActiveModel('b'), 'a -> (none) -> b').to.equal(2);
    expect(await store.count('b')).to.equal(1);
    expect(await store.count()).to.equal(1);
    expect(follower.followActiveModel('b')).to.equal(undefined);
  });

  describe('as the cache of ToolSearch', () => {
    let server: EmbeddingServer;
    before(async () => {
      server = await startEmbeddingServer({ dimensions: 64 });
    });
    after(async () => {
      await server.close();
    });

    it('survives a restart: a new index embeds no document again', async () => {
      const cache: EmbeddingCache = store;
      const docs = Array.from({ length: 150 }, (_, i) =>
        toToolDocument({ id: `b:${i}`, name: `tool_${i}`, description: `Does thing number ${i}`, serverName: 's', inputSchema: {} }),
      );
      const first = new ToolSearch({ logger, cache, embedder: openAiEmbedder(server.url, 'hash-64') });
      for (const d of docs) first.upsert(d);
      await first.whenEmbedded();
      first.close();
      const requestsAfterFirst = server.requests.length;
      expect(requestsAfterFirst).to.equal(3); // 150 texts in batches of 64
      expect(await store.count('hash-64')).to.equal(150);

      const second = new ToolSearch({ logger, cache, embedder: openAiEmbedder(server.url, 'hash-64') });
      for (const d of docs) second.upsert(d);
      await second.whenEmbedded();
      expect(server.requests.length).to.equal(requestsAfterFirst);
      expect(second.embeddingStatus()).to.include({ embedded: 150, pending: 0 });
      const result = await second.search({ query: 'thing number 42', allowed: new Set(docs.map((d) => d.id)), limit: 1 });
      expect(result.mode).to.equal('hybrid');
      expect(result.hits[0]!.id).to.equal('b:42');
      second.close();
    });
  });
});
