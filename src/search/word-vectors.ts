import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VectorIndex } from './vector-index.js';

/**
 * Word vectors for query expansion: a person asks "latitude and longitude of an address", the tool
 * says "geographic coordinates". The table (src/search/lexicon/word-vectors.bin, built by
 * scripts/build-search-lexicon.ts from GloVe vectors) holds 40,000 common English words at 100
 * 8-bit dimensions, about 4 MiB, read once on the first search that wants it, never at start.
 */
export class WordVectors {
  readonly dims: number;
  private readonly ids: Map<string, number>;
  private readonly vectors: Int8Array;
  private readonly inverseNorms: Float32Array;

  constructor(words: readonly string[], vectors: Int8Array, inverseNorms: Float32Array, dims: number) {
    this.dims = dims;
    this.vectors = vectors;
    this.inverseNorms = inverseNorms;
    this.ids = new Map(words.map((w, i) => [w, i]));
  }

  /** Number of words in the table. */
  get size(): number {
    return this.ids.size;
  }

  /** The id of a word, undefined when the table lacks it. */
  id(word: string): number | undefined {
    return this.ids.get(word);
  }

  /** The quantised vector of word `id` (a view, not a copy). */
  vector(id: number): Int8Array {
    return this.vectors.subarray(id * this.dims, (id + 1) * this.dims);
  }

  inverseNorm(id: number): number {
    return this.inverseNorms[id] ?? 0;
  }

  /** Cosine similarity of two words; 0 when either is missing. */
  similarity(a: string, b: string): number {
    const i = this.ids.get(a);
    const j = this.ids.get(b);
    if (i === undefined || j === undefined) return 0;
    const va = this.vector(i);
    const vb = this.vector(j);
    let dot = 0;
    for (let d = 0; d < this.dims; d++) dot += va[d]! * vb[d]!;
    return dot * this.inverseNorm(i) * this.inverseNorm(j);
  }

  /** Parses the table format written by scripts/build-search-lexicon.ts; throws on a malformed one. */
  static parse(bytes: Uint8Array): WordVectors {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.byteLength < 16 || new TextDecoder('latin1').decode(bytes.subarray(0, 4)) !== 'TGWV' || view.getUint32(4, true) !== 1)
      throw new Error('not a word-vector table (version 1)');
    const count = view.getUint32(8, true);
    const dims = view.getUint32(12, true);
    const normsEnd = 16 + count * 4;
    const vectorsEnd = normsEnd + count * dims;
    if (vectorsEnd > bytes.byteLength) throw new Error('word-vector table truncated');
    // Copies, so that the table does not pin a larger buffer and the float view is aligned.
    const inverseNorms = new Float32Array(count);
    for (let i = 0; i < count; i++) inverseNorms[i] = view.getFloat32(16 + i * 4, true);
    const vectors = new Int8Array(vectorsEnd - normsEnd);
    vectors.set(new Int8Array(bytes.buffer, bytes.byteOffset + normsEnd, vectorsEnd - normsEnd));
    const words = new TextDecoder().decode(bytes.subarray(vectorsEnd)).split('\n');
    if (words.length !== count) throw new Error('word-vector table: word count mismatch');
    return new WordVectors(words, vectors, inverseNorms, dims);
  }
}

/**
 * Where the table is: beside this file when run from src/search (tsx, tests), or in the
 * checkout's src/search/lexicon when run from the compiled dist/search (the build copies no data).
 */
function tablePaths(): string[] {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [path.join(here, 'lexicon', 'word-vectors.bin'), path.join(here, '..', '..', 'src', 'search', 'lexicon', 'word-vectors.bin')];
}

let shared: WordVectors | null | undefined;

/**
 * The shared table, read on first call; null (and query expansion off) when it cannot be read,
 * with `onError` told once why.
 */
export function defaultWordVectors(onError?: (err: unknown) => void): WordVectors | null {
  if (shared !== undefined) return shared;
  let lastError: unknown;
  for (const file of tablePaths()) {
    try {
      shared = WordVectors.parse(fs.readFileSync(file));
      return shared;
    } catch (err) {
      lastError = err;
    }
  }
  onError?.(lastError);
  shared = null;
  return shared;
}

/** One expansion of a query word: an indexed word near it, with their cosine similarity. */
export interface Neighbour {
  readonly term: string;
  readonly similarity: number;
}

/**
 * Nearest neighbours of a query word among the words of the index (not the whole table: a
 * neighbour no tool uses matches nothing). The index's words that the table knows are packed in
 * a {@link VectorIndex} (the WebAssembly SIMD scan of semantic search), so a lookup is one scan of
 * a few thousand 100-float rows; results are cached per word until the index learns a new word.
 */
export class VocabularyNeighbours {
  private readonly vectors: WordVectors;
  /** The index's words that the table knows, as unit vectors scanned by the SIMD kernel of {@link VectorIndex}. */
  private readonly index: VectorIndex;
  private readonly cache = new Map<string, readonly Neighbour[]>();

  constructor(vectors: WordVectors) {
    this.vectors = vectors;
    this.index = new VectorIndex(vectors.dims, 1024);
  }

  /** Number of index words with a vector. */
  get size(): number {
    return this.index.size;
  }

  /** Adds index words (those without a vector, or already known, are ignored). */
  addTerms(terms: Iterable<string>): void {
    let added = 0;
    for (const term of terms) {
      if (this.index.has(term)) continue;
      const id = this.vectors.id(term);
      if (id === undefined) continue;
      this.index.set(term, this.floatVector(id));
      added++;
    }
    if (added > 0) this.cache.clear();
  }

  /** Up to `limit` index words with cosine similarity ≥ `minSimilarity` to `word`, nearest first. */
  neighbours(word: string, limit: number, minSimilarity: number): readonly Neighbour[] {
    const key = `${limit}:${minSimilarity}:${word}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const id = this.vectors.id(word);
    const out: Neighbour[] = [];
    if (id !== undefined && limit > 0 && this.index.size > 0) {
      for (const hit of this.index.search(this.floatVector(id), { limit: limit + 1 })) {
        if (hit.id === word || hit.score < minSimilarity || out.length >= limit) continue;
        out.push({ term: hit.id, similarity: hit.score });
      }
    }
    if (this.cache.size >= 4096) this.cache.clear();
    this.cache.set(key, out);
    return out;
  }

  private floatVector(id: number): Float32Array {
    return Float32Array.from(this.vectors.vector(id));
  }
}
