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

/**
 * Exact cosine-similarity search over normalised vectors held in one contiguous Float32Array
 * (brute force: at 10,000 tools a scan is a few milliseconds, and exact). Slots of removed
 * documents are reused, so updates never move other vectors.
 */
export class VectorIndex {
  private slab: Float32Array;
  private ids: (string | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly free: number[] = [];

  constructor(
    readonly dimensions: number,
    initialCapacity = 256,
  ) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) throw new RangeError(`invalid vector dimensions: ${dimensions}`);
    this.slab = new Float32Array(dimensions * initialCapacity);
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
        const grown = new Float32Array(Math.max(this.slab.length * 2, (slot + 1) * this.dimensions));
        grown.set(this.slab);
        this.slab = grown;
      }
      this.ids[slot] = id;
      this.slotOf.set(id, slot);
    }
    this.slab.set(normalize(vector), slot * this.dimensions);
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
    const top = new TopK(limit);
    const allowed = options.allowed;
    const score = (slot: number) => dot(this.slab, slot * this.dimensions, q);
    if (allowed && allowed.size < this.slotOf.size) {
      for (const id of allowed) {
        const slot = this.slotOf.get(id);
        if (slot !== undefined) top.offer(slot, score(slot));
      }
    } else {
      for (let slot = 0; slot < this.ids.length; slot++) {
        const id = this.ids[slot];
        if (id === undefined || (allowed && !allowed.has(id))) continue;
        top.offer(slot, score(slot));
      }
    }
    return top.sorted().map(({ slot, score: s }) => ({ id: this.ids[slot]!, score: s }));
  }
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
