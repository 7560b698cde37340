import type { Knex } from 'knex';

export interface DbEmbeddingCacheRow {
  content_hash: string;
  model: string;
  dimensions: number;
  vector: Buffer;
  created_at: Date;
}

/** Hashes per statement (well under PostgreSQL's 65,535 bind parameters). */
const CHUNK = 500;

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
 * never overwrite: the same hash always means the same model and text.
 */
export class EmbeddingCacheStore {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  with(trx: Knex.Transaction): EmbeddingCacheStore {
    return new EmbeddingCacheStore(trx);
  }

  /** The stored vectors among `hashes`. */
  async getMany(hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    const unique = [...new Set(hashes)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const rows: Pick<DbEmbeddingCacheRow, 'content_hash' | 'vector'>[] = await this.db('embedding_cache')
        .select('content_hash', 'vector')
        .whereIn('content_hash', unique.slice(i, i + CHUNK));
      for (const row of rows) out.set(row.content_hash, bytesToVector(row.vector));
    }
    return out;
  }

  /** Stores vectors; hashes already stored are left alone. */
  async putMany(entries: readonly { hash: string; model: string; vector: Float32Array }[]): Promise<void> {
    for (let i = 0; i < entries.length; i += CHUNK) {
      const rows = entries.slice(i, i + CHUNK).map((e) => ({
        content_hash: e.hash,
        model: e.model,
        dimensions: e.vector.length,
        vector: vectorToBytes(e.vector),
      }));
      if (rows.length) await this.db('embedding_cache').insert(rows).onConflict('content_hash').ignore();
    }
  }

  /** Deletes the entries of every model but `keepModel`; returns how many went. */
  async deleteOtherModels(keepModel: string): Promise<number> {
    return (await this.db('embedding_cache').whereNot({ model: keepModel }).delete().returning('content_hash')).length;
  }

  /** Number of stored entries (of one model when given). */
  async count(model?: string): Promise<number> {
    const q = this.db('embedding_cache').count<{ count: string | number }[]>({ count: '*' });
    if (model) q.where({ model });
    const [row] = await q;
    return Number(row?.count ?? 0);
  }
}
