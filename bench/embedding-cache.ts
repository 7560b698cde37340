/**
 * What bounding `embedding_cache` costs at its real size. The table is filled past the store
 * (like a table grown before the cap) with EMB_FILL entries of EMB_DIMENSIONS float32 (one model,
 * default: the cap plus 256, 1,536), then timed are: the first prune (everything beyond the cap),
 * a prune with nothing to delete, and the delete of that whole model after a switch (all but 256
 * entries written under the new one). Prints the numbers and the table's size as JSON. PGlite in a
 * temporary directory by default; PostgreSQL (a schema of its own, dropped after) when
 * BENCH_DATABASE_URL is set, with the server's default 5 s statement limit.
 * Usage: npx tsx bench/embedding-cache.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src/logger.js';
import { contentHash } from '../src/search/tool-document.js';
import { migrateToLatest, openDatabase } from '../src/stores/database.js';
import { EMBEDDING_CACHE_MAX_ENTRIES, EmbeddingCacheStore, vectorToBytes } from '../src/stores/embedding-cache-store.js';

const FILL = Number(process.env.EMB_FILL ?? EMBEDDING_CACHE_MAX_ENTRIES + 256);
const DIMENSIONS = Number(process.env.EMB_DIMENSIONS ?? 1536);
const url = process.env.BENCH_DATABASE_URL;
const schema = url ? `bench_emb_${process.pid}` : undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-emb-bench-'));
const logger = createLogger({ logLevel: 'silent' });
const db = openDatabase({ databaseUrl: url, databaseSchema: schema, dataDir });

/** `n` rows of `model`, written past the store; created_at one second apart per 500. */
async function fill(model: string, from: number, n: number, at: number): Promise<void> {
  for (let i = 0; i < n; i += 500) {
    const rows = Array.from({ length: Math.min(500, n - i) }, (_, j) => {
      const vector = new Float32Array(DIMENSIONS);
      for (let d = 0; d < DIMENSIONS; d++) vector[d] = Math.sin(from + i + j + d);
      return {
        content_hash: contentHash(model, `tool text ${from + i + j}`),
        model,
        dimensions: DIMENSIONS,
        vector: vectorToBytes(vector),
        created_at: new Date(at + (i / 500) * 1000),
      };
    });
    await db.knex('embedding_cache').insert(rows);
  }
}
const timed = async <T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> => {
  const t0 = performance.now();
  const result = await work();
  return { ms: Math.round((performance.now() - t0) * 10) / 10, result };
};

try {
  await migrateToLatest(db, logger, { schema });
  const store = new EmbeddingCacheStore(db.knex);
  const t0 = performance.now();
  await fill('old', 0, FILL, Date.UTC(2026, 0, 1));
  const fillS = Math.round((performance.now() - t0) / 100) / 10;
  const [size] = (await db.knex.raw("select pg_total_relation_size('embedding_cache')::bigint as bytes")).rows as { bytes: string }[];
  const first = await timed(() => store.prune());
  const nothing = await timed(() => store.prune());
  await fill('new', 0, 256, Date.UTC(2026, 1, 1));
  const switched = await timed(() => store.deleteOtherModels('new'));
  console.log(
    JSON.stringify({
      database: db.kind,
      filled: FILL,
      cap: EMBEDDING_CACHE_MAX_ENTRIES,
      dimensions: DIMENSIONS,
      table_mib: Math.round(Number(size!.bytes) / 1048576),
      fill_s: fillS,
      first_prune: { ms: first.ms, deleted: first.result },
      prune_nothing: { ms: nothing.ms, deleted: nothing.result },
      delete_other_model: { ms: switched.ms, deleted: switched.result },
    }),
  );
} finally {
  if (schema) await db.knex.raw('drop schema if exists ?? cascade', [schema]);
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
