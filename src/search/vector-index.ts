import type { RankedHit } from './keyword-index.js';

/** Returns a unit-length copy of `v` (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const out = new Float32Array(v.length);
  if (sum === 0 || !Number.isFinite(sum)) return out;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

/** Options of {@link VectorIndex}. */
export interface VectorIndexOptions {
  /**
   * Size of the random-projection sketch used to pick candidates before exact scoring; 0 = exact
   * scan only. Default: 128 when the vectors have 512 dimensions or more, else 0.
   */
  sketchDimensions?: number;
  /** Candidates re-scored exactly after the sketch pass. Default 512. */
  rerank?: number;
}

/**
 * Cosine-similarity search over normalised vectors held in one contiguous Float32Array. Slots of
 * removed documents are reused, so updates never move other vectors. Small vectors are scanned
 * exactly. Large ones (a 1,536-dimension model at 10,000 tools is 15 M multiply-adds per query,
 * tens of milliseconds in JavaScript) are scanned in two passes: a 128-dimension random
 * projection of every vector (Johnson–Lindenstrauss: inner products kept to within about
 * ±0.1) picks the best `rerank` candidates, which are then scored exactly. The benchmark reports
 * how often the two-pass top 10 equals the exact one.
 */
export class VectorIndex {
  private slab: Float32Array;
  private ids: (string | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly free: number[] = [];
  private readonly sketchDims: number;
  private readonly rerank: number;
  /** Rows of ±1/√m: sketch = projection · vector. */
  private readonly projection: Float32Array;
  private sketches: Float32Array;

  constructor(
    readonly dimensions: number,
    initialCapacity = 256,
    options: VectorIndexOptions = {},
  ) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) throw new RangeError(`invalid vector dimensions: ${dimensions}`);
    this.slab = new Float32Array(dimensions * initialCapacity);
    const sketchDims = Math.floor(options.sketchDimensions ?? (dimensions >= 512 ? 128 : 0));
    this.sketchDims = sketchDims > 0 && sketchDims < dimensions ? sketchDims : 0;
    this.rerank = Math.max(1, Math.floor(options.rerank ?? 512));
    this.projection = this.sketchDims ? randomSigns(this.sketchDims, dimensions) : new Float32Array(0);
    this.sketches = new Float32Array(this.sketchDims * initialCapacity);
  }

  get size(): number {
    return this.slotOf.size;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** A copy of the stored (normalised) vector of a document. */
  get(id: string): Float32Array | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.slab.slice(slot * this.dimensions, (slot + 1) * this.dimensions);
  }

  /** Stores the normalised vector of a document (replacing its previous one). */
  set(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.dimensions}`);
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.ids.length;
      if ((slot + 1) * this.dimensions > this.slab.length) {
        const capacity = Math.max((this.slab.length / this.dimensions) * 2, slot + 1);
        const grown = new Float32Array(capacity * this.dimensions);
        grown.set(this.slab);
        this.slab = grown;
        const sketches = new Float32Array(capacity * this.sketchDims);
        sketches.set(this.sketches);
        this.sketches = sketches;
      }
      this.ids[slot] = id;
      this.slotOf.set(id, slot);
    }
    const unit = normalize(vector);
    this.slab.set(unit, slot * this.dimensions);
    if (this.sketchDims) this.sketches.set(this.sketch(unit), slot * this.sketchDims);
  }

  delete(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.free.push(slot);
    return true;
  }

  clear(): void {
    this.slotOf.clear();
    this.ids = [];
    this.free.length = 0;
  }

  /**
   * The `limit` documents most similar to `query` (cosine), among those in `allowed` when given,
   * best first. Only allowed documents are scored.
   */
  search(query: Float32Array, options: { allowed?: ReadonlySet<string> | undefined; limit: number }): RankedHit[] {
    if (query.length !== this.dimensions) throw new RangeError(`query has ${query.length} dimensions, the index ${this.dimensions}`);
    const limit = options.limit;
    if (limit <= 0 || this.slotOf.size === 0) return [];
    const q = normalize(query);
    const allowed = options.allowed;
    const slots: number[] = [];
    if (allowed && allowed.size < this.slotOf.size) {
      for (const id of allowed) {
        const slot = this.slotOf.get(id);
        if (slot !== undefined) slots.push(slot);
      }
    } else {
      for (let slot = 0; slot < this.ids.length; slot++) {
        const id = this.ids[slot];
        if (id !== undefined && (!allowed || allowed.has(id))) slots.push(slot);
      }
    }
    let candidates: Iterable<number> = slots;
    if (this.sketchDims && slots.length > Math.max(this.rerank, limit) * 2) {
      // First pass over the sketches; only the best `rerank` are scored in full.
      const qs = this.sketch(q);
      const coarse = new TopK(Math.max(this.rerank, limit));
      for (const slot of slots) coarse.offer(slot, dot(this.sketches, slot * this.sketchDims, qs));
      candidates = coarse.sorted().map((c) => c.slot);
    }
    const top = new TopK(limit);
    for (const slot of candidates) top.offer(slot, dot(this.slab, slot * this.dimensions, q));
    return top.sorted().map(({ slot, score: s }) => ({ id: this.ids[slot]!, score: s }));
  }

  /** Exact top `limit` by a full scan (the reference the two-pass search is measured against). */
  searchExact(query: Float32Array, options: { allowed?: ReadonlySet<string> | undefined; limit: number }): RankedHit[] {
    if (query.length !== this.dimensions) throw new RangeError(`query has ${query.length} dimensions, the index ${this.dimensions}`);
    if (options.limit <= 0) return [];
    const q = normalize(query);
    const top = new TopK(options.limit);
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot];
      if (id !== undefined && (!options.allowed || options.allowed.has(id))) top.offer(slot, dot(this.slab, slot * this.dimensions, q));
    }
    return top.sorted().map(({ slot, score: s }) => ({ id: this.ids[slot]!, score: s }));
  }

  private sketch(unit: Float32Array): Float32Array {
    const out = new Float32Array(this.sketchDims);
    for (let r = 0; r < this.sketchDims; r++) out[r] = dot(this.projection, r * this.dimensions, unit);
    return out;
  }
}

/** A rows × cols matrix of ±1/√rows from a fixed-seed generator (the same projection in every process). */
function randomSigns(rows: number, cols: number): Float32Array {
  const m = new Float32Array(rows * cols);
  const v = 1 / Math.sqrt(rows);
  let x = 0x9e3779b9;
  for (let i = 0; i < m.length; i++) {
    // xorshift32
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    m[i] = x & 1 ? v : -v;
  }
  return m;
}

/** Dot product of `q` with the vector starting at `offset` in `slab` (unrolled by four). */
function dot(slab: Float32Array, offset: number, q: Float32Array): number {
  const n = q.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += slab[offset + i]! * q[i]!;
    s1 += slab[offset + i + 1]! * q[i + 1]!;
    s2 += slab[offset + i + 2]! * q[i + 2]!;
    s3 += slab[offset + i + 3]! * q[i + 3]!;
  }
  for (; i < n; i++) s0 += slab[offset + i]! * q[i]!;
  return s0 + s1 + s2 + s3;
}

/** The k best (slot, score) pairs seen, kept in a min-heap. */
class TopK {
  private readonly slots: number[] = [];
  private readonly scores: number[] = [];

  constructor(private readonly k: number) {}

  offer(slot: number, score: number): void {
    if (Number.isNaN(score)) return;
    if (this.slots.length < this.k) {
      this.slots.push(slot);
      this.scores.push(score);
      this.up(this.slots.length - 1);
    } else if (score > this.scores[0]!) {
      this.slots[0] = slot;
      this.scores[0] = score;
      this.down(0);
    }
  }

  sorted(): { slot: number; score: number }[] {
    return this.slots.map((slot, i) => ({ slot, score: this.scores[i]! })).sort((a, b) => b.score - a.score || a.slot - b.slot);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.scores[parent]! <= this.scores[i]!) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.slots.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.scores[l]! < this.scores[m]!) m = l;
      if (r < n && this.scores[r]! < this.scores[m]!) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    [this.slots[a], this.slots[b]] = [this.slots[b]!, this.slots[a]!];
    [this.scores[a], this.scores[b]] = [this.scores[b]!, this.scores[a]!];
  }
}
