import type { Logger } from '../logger.js';
import { DescriptionExpansions, MemoryExpansionCache, type DescriptionExpander, type ExpansionCache } from './description-expansion.js';
import { MemoryEmbeddingCache, type Embedder, type EmbeddingCache } from './embedding.js';
import { fuse, type FusionMethod } from './fusion.js';
import { KeywordIndex, MAX_QUERY_LENGTH, type KeywordIndexOptions } from './keyword-index.js';
import { contentHash, embeddingText, type ToolDocument } from './tool-document.js';
import { VectorIndex } from './vector-index.js';

/** `hybrid`: keyword and semantic ranks fused; `keyword`: BM25 only (see `reason`). */
export type SearchMode = 'keyword' | 'hybrid';

/**
 * Why a search was keyword-only: no embedding provider; no tool embedded yet; the query
 * embedding failed; or it did not arrive within the timeout.
 */
export type KeywordOnlyReason = 'no_embedder' | 'not_embedded' | 'embedding_failed' | 'embedding_timeout';

export interface ToolSearchHit {
  /** Document id ({@link toolDocumentId}). */
  readonly id: string;
  /** Higher is better; BM25 in keyword mode, the fused score in hybrid mode. */
  readonly score: number;
}

export interface ToolSearchResult {
  readonly mode: SearchMode;
  /** Set when `mode` is `keyword`. */
  readonly reason?: KeywordOnlyReason;
  /** Best first, at most `limit`, every id in the request's `allowed` set. */
  readonly hits: ToolSearchHit[];
}

export interface ToolSearchRequest {
  readonly query: string;
  /** Ids of the documents the caller may reach; nothing else is ever scored or returned. */
  readonly allowed: ReadonlySet<string>;
  readonly limit: number;
  /** Aborts the query embedding (the caller went away). */
  readonly signal?: AbortSignal;
}

export interface ToolSearchOptions {
  logger: Logger;
  /** The active embedding provider; null or absent = keyword search only. */
  embedder?: Embedder | null;
  /** Where document embeddings are kept across restarts (the database store); default in memory. */
  cache?: EmbeddingCache;
  keyword?: KeywordIndexOptions;
  /** The active LLM provider's description expander; null or absent = none (description-expansion.ts). */
  expander?: DescriptionExpander | null;
  /** Where expansions are kept by content hash; default in memory. */
  expansionCache?: ExpansionCache;
  /** Wait after a failed expansion request before the next (ms). Default 60,000. */
  expansionPauseMs?: number;
  /** Rank fusion; default {@link DEFAULT_FUSION}. */
  fusion?: FusionMethod;
  /** Longest wait for a query embedding before answering keyword-only (ms). Default 1500. */
  queryTimeoutMs?: number;
  /** Longest wait for one batch of document embeddings (ms). Default 60,000. */
  batchTimeoutMs?: number;
  /** Texts per embedding request. Default 64. */
  batchSize?: number;
  /** Candidates taken from each ranking before fusion. Default 50. */
  candidates?: number;
  /** First retry delay after a failed embedding batch (doubles up to `retryMaxMs`). Default 5,000. */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/**
 * Fusion chosen on the labelled set (bench/search/run.ts, "fusion" table in BENCHMARKS.md): a
 * convex combination of min-max normalised scores, 0.8 keyword + 0.2 semantic, which beat plain
 * and weighted RRF there. Measured with the loopback hashed-n-gram embedder; with a real
 * embedding model re-measure and pass `fusion` (the semantic side then deserves more weight).
 */
export const DEFAULT_FUSION: FusionMethod = { kind: 'convex', alpha: 0.8, normalization: 'minmax' };

const QUERY_CACHE_SIZE = 1000;
/** Warnings about one kind of failure are logged at most this often (a provider outage would flood the log). */
const WARN_INTERVAL_MS = 30_000;

interface DocRecord {
  doc: ToolDocument;
  /** Everything the index reads, in one string: a change here means re-indexing. */
  text: string;
  /** Content hash under the current embedder's model (undefined without an embedder). */
  hash: string | undefined;
  /** Hash of the expansion asked for under the current expander (undefined without one). */
  expansionHash: string | undefined;
  /** The expansion the keyword index holds for this document, if any. */
  expansion: string | undefined;
}

/**
 * Hybrid tool search over the documents the endpoint feeds it. Keyword (BM25) is updated
 * synchronously on every change; embeddings of changed texts are computed in the background in
 * batches (cache first, then the embedder), never on a caller's request path. A search fuses the
 * keyword and the semantic ranking when it can and otherwise answers keyword-only, saying why.
 * Every ranking is computed over the caller's allowed documents only.
 */
export class ToolSearch {
  private readonly logger: Logger;
  private readonly cache: EmbeddingCache;
  private readonly keyword: KeywordIndex;
  private readonly fusion: FusionMethod;
  private readonly queryTimeoutMs: number;
  private readonly batchTimeoutMs: number;
  private readonly batchSize: number;
  private readonly candidates: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;

  private embedder: Embedder | null;
  private readonly docs = new Map<string, DocRecord>();
  private readonly idsByHash = new Map<string, Set<string>>();
  /** Hashes waiting for an embedding, in arrival order. */
  private readonly queue = new Set<string>();
  private vectors: VectorIndex | undefined;
  private readonly queryVectors = new Map<string, Float32Array>();
  /** Bumped when the embedder changes: work started for an older one is dropped. */
  private generation = 0;
  private draining: Promise<void> | undefined;
  private startTimer: NodeJS.Immediate | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private batchAbort: AbortController | undefined;
  private idleWaiters: (() => void)[] = [];
  private readonly lastWarn = new Map<string, { at: number; suppressed: number }>();
  private closed = false;
  private readonly expansions: DescriptionExpansions;

  constructor(options: ToolSearchOptions) {
    this.logger = options.logger;
    this.embedder = options.embedder ?? null;
    this.cache = options.cache ?? new MemoryEmbeddingCache();
    this.keyword = new KeywordIndex(options.keyword);
    this.fusion = options.fusion ?? DEFAULT_FUSION;
    this.queryTimeoutMs = options.queryTimeoutMs ?? 1500;
    this.batchTimeoutMs = options.batchTimeoutMs ?? 60_000;
    this.batchSize = Math.max(1, options.batchSize ?? 64);
    this.candidates = Math.max(1, options.candidates ?? 50);
    this.retryBaseMs = options.retryBaseMs ?? 5_000;
    this.retryMaxMs = options.retryMaxMs ?? 300_000;
    this.expansions = new DescriptionExpansions({
      logger: this.logger,
      cache: options.expansionCache ?? new MemoryExpansionCache(),
      ...(options.expansionPauseMs !== undefined ? { pauseAfterFailureMs: options.expansionPauseMs } : {}),
      onExpanded: (id, expansion, hash) => {
        const rec = this.docs.get(id);
        if (!rec || rec.expansionHash !== hash || rec.expansion === expansion) return;
        rec.expansion = expansion;
        this.keyword.upsert({ ...rec.doc, expansion });
      },
    });
    if (options.expander) this.expansions.setExpander(options.expander);
  }

  /** Number of documents indexed. */
  get size(): number {
    return this.docs.size;
  }

  has(id: string): boolean {
    return this.docs.has(id);
  }

  /** Embedding progress: documents with a vector, and distinct texts still waiting. */
  embeddingStatus(): { embedded: number; pending: number; model: string | null } {
    return { embedded: this.vectors?.size ?? 0, pending: this.queue.size, model: this.embedder?.model ?? null };
  }

  /**
   * Adds or replaces one document. The keyword index is updated before this returns; when the
   * text changed and an embedder is set, its embedding is queued for the background worker.
   * An unchanged document costs one string comparison. Returns whether anything changed.
   */
  upsert(doc: ToolDocument): boolean {
    const text = embeddingText(doc);
    const prev = this.docs.get(doc.id);
    if (prev && prev.text === text) {
      prev.doc = doc;
      return false;
    }
    const asked = this.expansions.request(doc.id, text);
    this.keyword.upsert(asked?.expansion ? { ...doc, expansion: asked.expansion } : doc);
    const hash = this.embedder ? contentHash(this.embedder.model, text) : undefined;
    if (prev?.hash && prev.hash !== hash) this.unlinkHash(doc.id, prev.hash);
    this.docs.set(doc.id, { doc, text, hash, expansionHash: asked?.hash, expansion: asked?.expansion });
    if (hash) this.linkHash(doc.id, hash);
    return true;
  }

  /** Removes one document; false when it was not indexed. */
  remove(id: string): boolean {
    const prev = this.docs.get(id);
    if (!prev) return false;
    this.docs.delete(id);
    this.expansions.forget(id);
    this.keyword.remove(id);
    this.vectors?.delete(id);
    if (prev.hash) this.unlinkHash(id, prev.hash);
    return true;
  }

  /**
   * Makes the indexed set equal to `docs`: new and changed documents are upserted, documents
   * not in `docs` removed, unchanged ones left alone.
   */
  replaceAll(docs: Iterable<ToolDocument>): { upserted: number; removed: number } {
    const seen = new Set<string>();
    let upserted = 0;
    for (const doc of docs) {
      seen.add(doc.id);
      if (this.upsert(doc)) upserted++;
    }
    let removed = 0;
    for (const id of [...this.docs.keys()]) if (!seen.has(id) && this.remove(id)) removed++;
    return { upserted, removed };
  }

  /** The document with this id, as last fed. */
  document(id: string): ToolDocument | undefined {
    return this.docs.get(id)?.doc;
  }

  /**
   * Sets (or clears) the embedding provider. A different model drops every vector and queues
   * every text for embedding again (cached embeddings of that model are reused).
   */
  setEmbedder(embedder: Embedder | null): void {
    if (embedder === this.embedder) return;
    const sameModel = embedder && this.embedder && embedder.model === this.embedder.model;
    this.embedder = embedder;
    if (sameModel) return;
    this.generation++;
    this.batchAbort?.abort(new Error('embedder changed'));
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.failures = 0;
    this.vectors = undefined;
    this.queryVectors.clear();
    this.idsByHash.clear();
    this.queue.clear();
    for (const [id, rec] of this.docs) {
      rec.hash = embedder ? contentHash(embedder.model, rec.text) : undefined;
      if (rec.hash) this.linkHash(id, rec.hash);
    }
    this.notifyIfIdle();
  }

  /**
   * Sets (or clears) the LLM provider's description expander. Every text is asked of the new one
   * (cached expansions are reused); an expansion already indexed stays until its replacement
   * arrives, and all go when the expander is cleared.
   */
  setExpander(expander: DescriptionExpander | null): void {
    this.expansions.setExpander(expander);
    for (const [id, rec] of this.docs) {
      const asked = this.expansions.request(id, rec.text);
      rec.expansionHash = asked?.hash;
      const expansion = asked ? (asked.expansion ?? rec.expansion) : undefined;
      if (expansion === rec.expansion) continue;
      rec.expansion = expansion;
      this.keyword.upsert(expansion ? { ...rec.doc, expansion } : rec.doc);
    }
  }

  /** Resolves once no description expansion is queued or running. */
  whenExpanded(): Promise<void> {
    return this.expansions.whenIdle();
  }

  /** Resolves once no embedding work is queued or running (or the worker is waiting to retry after a failure). */
  whenEmbedded(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops background work; the index still answers keyword searches. */
  close(): void {
    this.closed = true;
    this.expansions.close();
    this.batchAbort?.abort(new Error('search closed'));
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.startTimer) clearImmediate(this.startTimer);
    this.retryTimer = undefined;
    this.startTimer = undefined;
    this.queue.clear();
    this.notifyIfIdle();
  }

  /** Keyword (BM25) ranking only, synchronously. */
  keywordSearch(query: string, allowed: ReadonlySet<string>, limit: number): ToolSearchHit[] {
    return this.keyword.search(query, { allowed, limit: clampLimit(limit) });
  }

  /**
   * Searches the caller's allowed documents. Hybrid when an embedder is set, some documents are
   * embedded and the query embedding arrives within the timeout; otherwise keyword-only with
   * the reason (a failed or late query embedding is logged). Rejects only when `signal` aborts.
   */
  async search(request: ToolSearchRequest): Promise<ToolSearchResult> {
    const limit = clampLimit(request.limit);
    const pool = Math.max(limit, this.candidates);
    const query = request.query.slice(0, MAX_QUERY_LENGTH);
    const keyword = this.keyword.search(query, { allowed: request.allowed, limit: pool });
    const keywordOnly = (reason: KeywordOnlyReason): ToolSearchResult => ({ mode: 'keyword', reason, hits: keyword.slice(0, limit) });
    const embedder = this.embedder;
    if (!embedder) return keywordOnly('no_embedder');
    if (!this.vectors || this.vectors.size === 0) return keywordOnly('not_embedded');
    let queryVector: Float32Array;
    try {
      queryVector = await this.embedQuery(embedder, query, request.signal);
    } catch (err) {
      if (request.signal?.aborted) throw request.signal.reason;
      const timedOut = (err as Error)?.name === 'TimeoutError';
      this.warn(timedOut ? 'query_timeout' : 'query_failed', err, 'tool search: query embedding failed; answering with keyword results');
      return keywordOnly(timedOut ? 'embedding_timeout' : 'embedding_failed');
    }
    const vectors = this.vectors;
    if (embedder !== this.embedder || !vectors || queryVector.length !== vectors.dimensions) {
      this.warn(
        'query_failed',
        new Error('query embedding does not match the document embeddings'),
        'tool search: answering with keyword results',
      );
      return keywordOnly('embedding_failed');
    }
    const semantic = vectors.search(queryVector, { allowed: request.allowed, limit: pool });
    const hits = fuse(keyword, semantic, this.fusion, limit).map(({ id, score }) => ({ id, score }));
    return { mode: 'hybrid', hits };
  }

  private async embedQuery(embedder: Embedder, query: string, signal: AbortSignal | undefined): Promise<Float32Array> {
    const cached = this.queryVectors.get(query);
    if (cached) return cached;
    const timeout = AbortSignal.timeout(this.queryTimeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let vector: Float32Array | undefined;
    try {
      [vector] = await raceAbort(embedder.embed([query], combined), combined);
    } catch (err) {
      if (timeout.aborted && !signal?.aborted)
        throw Object.assign(new Error(`no query embedding within ${this.queryTimeoutMs} ms`), { name: 'TimeoutError' });
      throw err;
    }
    if (!(vector instanceof Float32Array) || vector.length === 0) throw new Error('the embedder returned no vector for the query');
    if (embedder === this.embedder) {
      if (this.queryVectors.size >= QUERY_CACHE_SIZE) this.queryVectors.delete(this.queryVectors.keys().next().value!);
      this.queryVectors.set(query, vector);
    }
    return vector;
  }

  private linkHash(id: string, hash: string): void {
    let ids = this.idsByHash.get(hash);
    if (!ids) {
      ids = new Set();
      this.idsByHash.set(hash, ids);
    }
    // A text already embedded for another document (same tool in another bundle) is reused at once.
    const sibling = ids.values().next();
    const known = !sibling.done && this.vectors ? this.vectors.get(sibling.value) : undefined;
    ids.add(id);
    if (known) this.vectors!.set(id, known);
    else {
      this.vectors?.delete(id);
      this.queue.add(hash);
      this.scheduleDrain();
    }
  }

  private unlinkHash(id: string, hash: string): void {
    const ids = this.idsByHash.get(hash);
    if (!ids) return;
    ids.delete(id);
    if (ids.size === 0) {
      this.idsByHash.delete(hash);
      this.queue.delete(hash);
    }
  }

  private scheduleDrain(): void {
    if (this.closed || this.draining || this.startTimer || this.retryTimer || !this.embedder || this.queue.size === 0) return;
    // Deferred so that a burst of upserts (a catalog sync) goes out in full batches.
    this.startTimer = setImmediate(() => {
      this.startTimer = undefined;
      this.draining = this.drain().finally(() => {
        this.draining = undefined;
        this.scheduleDrain();
        this.notifyIfIdle();
      });
    });
  }

  private async drain(): Promise<void> {
    const generation = this.generation;
    const embedder = this.embedder;
    while (embedder && this.queue.size > 0 && generation === this.generation && !this.closed) {
      const batch: string[] = [];
      for (const hash of this.queue) {
        if (batch.length >= this.batchSize) break;
        batch.push(hash);
      }
      let vectors: Map<string, Float32Array>;
      try {
        vectors = await this.cache.getMany(batch);
      } catch (err) {
        this.warn('cache_read', err, 'tool search: embedding cache unreadable; embedding again');
        vectors = new Map();
      }
      if (generation !== this.generation) return;
      const missing = batch.filter((h) => !vectors.has(h) && this.idsByHash.has(h));
      if (missing.length) {
        const texts = missing.map((h) => this.textOfHash(h));
        this.batchAbort = new AbortController();
        const signal = AbortSignal.any([this.batchAbort.signal, AbortSignal.timeout(this.batchTimeoutMs)]);
        let embedded: Float32Array[];
        try {
          embedded = await raceAbort(embedder.embed(texts, signal), signal);
          validateVectors(embedded, missing.length);
        } catch (err) {
          if (generation !== this.generation || this.closed) return;
          this.failures++;
          const delay = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** (this.failures - 1));
          this.warn('batch_failed', err, `tool search: embedding ${missing.length} tool texts failed; retrying in ${delay} ms`);
          this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            this.scheduleDrain();
          }, delay);
          this.retryTimer.unref();
          return;
        } finally {
          this.batchAbort = undefined;
        }
        if (generation !== this.generation) return;
        this.failures = 0;
        const entries = missing.map((hash, i) => ({ hash, model: embedder.model, vector: embedded[i]! }));
        try {
          await this.cache.putMany(entries);
        } catch (err) {
          this.warn('cache_write', err, 'tool search: embedding cache not written; the embeddings are used anyway');
        }
        if (generation !== this.generation) return;
        for (const e of entries) vectors.set(e.hash, e.vector);
      }
      for (const hash of batch) {
        this.queue.delete(hash);
        const vector = vectors.get(hash);
        const ids = this.idsByHash.get(hash);
        if (!vector || !ids) continue;
        const index = this.vectorIndexFor(vector.length);
        for (const id of ids) index.set(id, vector);
      }
    }
  }

  /** The vector index, (re)created for `dimensions` (a provider that changed dimensions starts over). */
  private vectorIndexFor(dimensions: number): VectorIndex {
    if (this.vectors && this.vectors.dimensions === dimensions) return this.vectors;
    if (this.vectors)
      this.logger.warn({ from: this.vectors.dimensions, to: dimensions }, 'tool search: embedding dimensions changed; vectors rebuilt');
    this.vectors = new VectorIndex(dimensions, Math.max(256, this.docs.size));
    for (const hash of this.idsByHash.keys()) this.queue.add(hash);
    return this.vectors;
  }

  private textOfHash(hash: string): string {
    const id = this.idsByHash.get(hash)?.values().next().value;
    return (id !== undefined && this.docs.get(id)?.text) || '';
  }

  private isIdle(): boolean {
    return (
      this.closed || !this.embedder || (!this.draining && !this.startTimer && (this.queue.size === 0 || this.retryTimer !== undefined))
    );
  }

  private notifyIfIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Logs a warning, at most once per {@link WARN_INTERVAL_MS} per kind (with how many were suppressed). */
  private warn(kind: string, err: unknown, message: string): void {
    const now = Date.now();
    const last = this.lastWarn.get(kind);
    if (last && now - last.at < WARN_INTERVAL_MS) {
      last.suppressed++;
      return;
    }
    this.lastWarn.set(kind, { at: now, suppressed: 0 });
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    this.logger.warn({ error, ...(last?.suppressed ? { suppressed: last.suppressed } : {}) }, message);
  }
}

/** Limits accepted from callers: 1..100. */
function clampLimit(limit: number): number {
  return Number.isFinite(limit) ? Math.min(100, Math.max(1, Math.floor(limit))) : 10;
}

/** Rejects as soon as `signal` aborts, even if the embedder ignores it. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function validateVectors(vectors: unknown, expected: number): asserts vectors is Float32Array[] {
  if (!Array.isArray(vectors) || vectors.length !== expected) {
    throw new Error(`the embedder returned ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${expected} texts`);
  }
  const dims = (vectors[0] as Float32Array | undefined)?.length;
  for (const v of vectors) {
    if (!(v instanceof Float32Array) || v.length === 0 || v.length !== dims) throw new Error('the embedder returned malformed vectors');
  }
}
