import { tokenize } from '../../src/search/tokenizer.js';
import type { WordVectors } from '../../src/search/word-vectors.js';

/** Options of {@link SentenceVectors}. */
export interface SentenceVectorOptions {
  /**
   * The SIF constant `a` (Arora et al., 2017): a word weighs a / (a + p(w)), p(w) its estimated
   * frequency in English. Default 1e-3.
   */
  a?: number;
}

/**
 * Issue 33 experiment (bench only, not shipped: it did not beat keyword search with word-vector
 * expansion on the tuning third; see BENCHMARKS.md "Tool search" and bench/history/2026-11-28.md).
 *
 * A text's vector without any AI provider: the SIF-weighted average of the unit GloVe vectors of
 * its words (identifiers split, stop words dropped), so that "latitude and longitude of an address"
 * lands near "geocode an address to coordinates". A word's frequency p(w) is estimated from its rank
 * in the table (the table is in GloVe's frequency order; Zipf: p ∝ 1/rank). The result is a unit
 * Float32Array of the table's dimensions, or null when the table knows none of the words.
 */
export class SifVectors {
  readonly dims: number;
  private readonly vectors: WordVectors;
  private readonly a: number;
  /** 1 / (ln N + γ): the Zipf normalisation of a table of N words. */
  private readonly zipf: number;

  constructor(vectors: WordVectors, options: SentenceVectorOptions = {}) {
    this.vectors = vectors;
    this.dims = vectors.dims;
    this.a = options.a ?? 1e-3;
    this.zipf = 1 / (Math.log(Math.max(2, vectors.size)) + 0.5772);
  }

  /** The SIF weight of the word with table id `id` (its rank, 0 = most frequent). */
  weight(id: number): number {
    const p = this.zipf / (id + 1);
    return this.a / (this.a + p);
  }

  /** The unit vector of `text`, or null when no word of it has a vector. */
  embed(text: string): Float32Array | null {
    const out = new Float32Array(this.dims);
    let words = 0;
    for (const term of tokenize(text, { compounds: false })) {
      const id = this.vectors.id(term);
      if (id === undefined) continue;
      const scale = this.weight(id) * this.vectors.inverseNorm(id);
      const v = this.vectors.vector(id);
      for (let d = 0; d < this.dims; d++) out[d]! += scale * v[d]!;
      words++;
    }
    if (words === 0) return null;
    let norm = 0;
    for (let d = 0; d < this.dims; d++) norm += out[d]! * out[d]!;
    if (norm === 0) return null;
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < this.dims; d++) out[d]! *= inv;
    return out;
  }
}

/**
 * The first principal component of `rows` (unit vectors), by power iteration: the direction every
 * SIF average shares (common words, the style of tool descriptions), removed by {@link removeComponent}.
 */
export function firstPrincipalComponent(rows: Iterable<Float32Array>, dims: number, iterations = 30): Float32Array {
  const list = [...rows];
  let pc = new Float32Array(dims).fill(1 / Math.sqrt(dims));
  for (let it = 0; it < iterations && list.length > 0; it++) {
    const next = new Float32Array(dims);
    for (const v of list) {
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += v[d]! * pc[d]!;
      for (let d = 0; d < dims; d++) next[d]! += dot * v[d]!;
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += next[d]! * next[d]!;
    if (norm === 0) break;
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dims; d++) next[d]! *= inv;
    pc = next;
  }
  return pc;
}

/** `v` without its projection on the unit vector `pc`, made unit again (a new array). */
export function removeComponent(v: Float32Array, pc: Float32Array): Float32Array {
  let dot = 0;
  for (let d = 0; d < v.length; d++) dot += v[d]! * pc[d]!;
  const out = new Float32Array(v.length);
  let norm = 0;
  for (let d = 0; d < v.length; d++) {
    out[d] = v[d]! - dot * pc[d]!;
    norm += out[d]! * out[d]!;
  }
  const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let d = 0; d < v.length; d++) out[d]! *= inv;
  return out;
}
