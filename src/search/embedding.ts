/**
 * Turns texts into embedding vectors. Implemented by the AI provider adapter (an `embedding`
 * provider); tests and the benchmark use a loopback server speaking the OpenAI wire format.
 */
export interface Embedder {
  /** Identifies the model (and its settings, e.g. dimensions); part of every cache key. */
  readonly model: string;
  /** One vector per text, in order. Must honour `signal` (abort = stop and reject). */
  embed(texts: string[], signal: AbortSignal): Promise<Float32Array[]>;
}

/** One cached embedding. */
export interface EmbeddingCacheEntry {
  /** `contentHash(model, text)`. */
  readonly hash: string;
  readonly model: string;
  readonly vector: Float32Array;
}

/**
 * Embeddings by content hash (SHA-256 of model + text), so a text is embedded once per model,
 * whichever tool, bundle or instance it belongs to. Implementations: {@link MemoryEmbeddingCache}
 * and the database store (`EmbeddingCacheStore`).
 */
export interface EmbeddingCache {
  /** The cached vectors among `hashes` (missing ones are absent from the map). */
  getMany(hashes: readonly string[]): Promise<Map<string, Float32Array>>;
  /** Stores vectors; an entry whose hash is already cached is left as it is. */
  putMany(entries: readonly EmbeddingCacheEntry[]): Promise<void>;
}

/** In-process cache, bounded: the oldest entries go first once `maxEntries` is reached. */
export class MemoryEmbeddingCache implements EmbeddingCache {
  private readonly entries = new Map<string, Float32Array>();

  constructor(private readonly maxEntries = 100_000) {}

  get size(): number {
    return this.entries.size;
  }

  async getMany(hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (const h of hashes) {
      const v = this.entries.get(h);
      if (v) out.set(h, v);
    }
    return out;
  }

  async putMany(entries: readonly EmbeddingCacheEntry[]): Promise<void> {
    for (const e of entries) {
      if (this.entries.has(e.hash)) continue;
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(e.hash, e.vector);
    }
  }
}
