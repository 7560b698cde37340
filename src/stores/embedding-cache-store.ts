import type { Knex } from 'knex';
import { ContentCacheBound } from './content-cache-bound.js';

export interface DbEmbeddingCacheRow {
  content_hash: string;
  model: string;
  dimensions: number;
  vector: Buffer;
  created_at: Date;
}

/**
 * Entries kept by default. Every distinct tool text is one entry per model, so the cap holds the
 * largest catalogs several times over (the search benchmark indexes 10,000 tools): room for
 * descriptions that change and for two models side by side around a switch, without evicting
 * texts still in use (an evicted one is embedded again at the next start, which costs provider
 * calls). At 1,536 float32 dimensions an entry takes about 8.4 KiB on disk (6 KiB of vector, the
 * rest row and TOAST overhead): 410 MiB at the cap, measured (bench/embedding-cache.ts); smaller
 * models take proportionally less.
 */
export const EMBEDDING_CACHE_MAX_ENTRIES = 50_000;

/** Float32 vector → little-endian bytes. */
export function vectorToBytes(vector: Float32Array): Buffer {
  const buf = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) buf.writeFloatLE(vector[i]!, i * 4);
  return buf;
}

/** Little-endian bytes → Float32 vector. */
export function bytesToVector(bytes: Uint8Array): Float32Array {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(Math.floor(buf.length / 4));
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

/**
 * Persistence of tool-text embeddings by content hash (the search's `EmbeddingCache`). Writes
 * never overwrite: the same hash always means the same model and text. Bounded like the expansion
 * cache: beyond `maxEntries` the oldest entries go (checked on the first write and every few
 * hundred new entries after, from the search's background batches), and when the active model
 * changes the other models' entries go once ({@link followActiveModel}).
 */
export class EmbeddingCacheStore {
  private readonly bound: ContentCacheBound;
  /** The last non-null model {@link followActiveModel} was told of. */
  private activeModel: string | undefined;

  constructor(
    private readonly db: Knex | Knex.Transaction,
    maxEntries = EMBEDDING_CACHE_MAX_ENTRIES,
  ) {
    this.bound = new ContentCacheBound('embedding_cache', maxEntries);
  }

  with(trx: Knex.Transaction): EmbeddingCacheStore {
    return new EmbeddingCacheStore(trx, this.bound.maxEntries);
  }

  /** The stored vectors among `hashes`. */
  async getMany(hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const rows = await this.bound.getMany<Pick<DbEmbeddingCacheRow, 'content_hash' | 'vector'>>(this.db, hashes, [
      'content_hash',
      'vector',
    ]);
    return new Map(rows.map((row) => [row.content_hash, bytesToVector(row.vector)]));
  }

  /** Stores vectors; hashes already stored are left alone. May prune the oldest beyond the cap. */
  async putMany(entries: readonly { hash: string; model: string; vector: Float32Array }[]): Promise<void> {
    await this.bound.insert(
      this.db,
      entries.map((e) => ({ content_hash: e.hash, model: e.model, dimensions: e.vector.length, vector: vectorToBytes(e.vector) })),
    );
  }

  /** Deletes the oldest entries beyond the cap (whatever their model); returns how many went. */
  prune(): Promise<number> {
    return this.bound.prune(this.db);
  }

  /**
   * Told the active embedding model (null: none) each time the provider configuration is read.
   * When it changes from one model to another, starts deleting every other model's entries and
   * returns that work (the caller leaves it running in the background and logs its outcome);
   * otherwise returns undefined. The first model told of deletes nothing: what a restart finds is
   * left to the cap, and so is a model that goes away without a successor (null).
   *
   * Safe with several instances on one database: the rows are only a cache. An instance that has
   * not heard of the switch yet keeps its vectors in memory; what it writes for the old model after
   * the delete stays until the cap evicts it, and a text it must read back is embedded again with
   * the old model (provider calls, no wrong result). It hears of the switch moments later (the
   * change bus), or reads the new model when it starts.
   */
  followActiveModel(model: string | null): Promise<number> | undefined {
    if (model === null) return undefined;
    const previous = this.activeModel;
    this.activeModel = model;
    return previous === undefined || previous === model ? undefined : this.deleteOtherModels(model);
  }

  /** Deletes the entries of every model but `keepModel`; returns how many went. */
  deleteOtherModels(keepModel: string): Promise<number> {
    return this.bound.deleteInChunks(this.db, () => this.db('embedding_cache').select('content_hash').whereNot({ model: keepModel }));
  }

  /** Number of stored entries (of one model when given). */
  async count(model?: string): Promise<number> {
    const q = this.db('embedding_cache').count<{ count: string | number }[]>({ count: '*' });
    if (model) q.where({ model });
    const [row] = await q;
    return Number(row?.count ?? 0);
  }
}
