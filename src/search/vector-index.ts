import type { RankedHit } from './keyword-index.js';
import { DOT_WASM_BASE64 } from './simd/dot-wasm.js';

/**
 * The vector half of tool search: unit-length embeddings in one flat Float32Array, scored with the
 * WebAssembly SIMD dot kernel (src/search/simd) and ranked by a bounded top-k heap. About 500 lines
 * and one file on purpose: the row layout, the kernel's memory and the scoring loop share one
 * invariant (rows padded to the kernel's step, in the kernel's memory) that is easier to keep when
 * it is read in one place.
 */

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
  /** Use the WebAssembly SIMD kernel when the runtime has it (default true); false = the JavaScript loop. */
  simd?: boolean;
}

/** Floats per stored row are rounded up to this (the SIMD kernel takes 16 floats per step). */
const ROW_ALIGN = 16;
const roundUp = (n: number, to: number) => Math.ceil(n / to) * to;

/**
 * Cosine-similarity search over normalised vectors held in one contiguous block of memory. Slots
 * of removed documents are reused, so updates never move other vectors. Scoring runs in a
 * WebAssembly SIMD kernel (`simd/dot.wat`, f32x4) over only the caller's allowed rows (their row
 * numbers are cached per allowed set until a document is added or removed), falling back to a
 * JavaScript loop when the runtime has no wasm SIMD. Small vectors are scanned exactly. Large
 * ones (a 1,536-dimension model at 10,000 tools is 15 M multiply-adds and 61 MB read per query)
 * are scanned in two passes: a 128-dimension random projection of every vector
 * (Johnson–Lindenstrauss: inner products kept to within about ±0.1) picks the best `rerank`
 * candidates, which are then scored exactly. The benchmark reports how often the two-pass top 10
 * equals the exact one.
 */
export class VectorIndex {
  private ids: (string | undefined)[] = [];
  private readonly slotOf = new Map<string, number>();
  private readonly free: number[] = [];
  private readonly sketchDims: number;
  private readonly rerank: number;
  /** Floats per stored vector / sketch (zero-padded to {@link ROW_ALIGN}). */
  private readonly stride: number;
  private readonly sketchStride: number;
  private readonly kernel: DotKernel;
  private capacity = 0;
  /** Byte offsets of the regions of the kernel's memory (see {@link layout}). */
  private qAt = 0;
  private qsAt = 0;
  private projectionAt = 0;
  private slotsAt = 0;
  private outAt = 0;
  private slabAt = 0;
  private sketchesAt = 0;
  /** Bumped when the set of stored ids changes: cached row lists of allowed sets are then stale. */
  private version = 0;
  private readonly rowsOf = new WeakMap<ReadonlySet<string>, { version: number; size: number; rows: Int32Array }>();
  private readonly top = new TopK();

  constructor(
    readonly dimensions: number,
    initialCapacity = 256,
    options: VectorIndexOptions = {},
  ) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) throw new RangeError(`invalid vector dimensions: ${dimensions}`);
    const sketchDims = Math.floor(options.sketchDimensions ?? (dimensions >= 512 ? 128 : 0));
    this.sketchDims = sketchDims > 0 && sketchDims < dimensions ? sketchDims : 0;
    this.rerank = Math.max(1, Math.floor(options.rerank ?? 512));
    this.stride = roundUp(dimensions, ROW_ALIGN);
    this.sketchStride = roundUp(this.sketchDims, ROW_ALIGN);
    this.kernel = (options.simd ?? true) ? (WasmDotKernel.create() ?? new JsDotKernel()) : new JsDotKernel();
    this.layout(Math.max(16, initialCapacity));
    if (this.sketchDims) {
      // Rows of ±1/√m (sketch = projection · vector), padded to the row stride.
      const projection = randomSigns(this.sketchDims, dimensions);
      const f32 = this.kernel.f32();
      for (let r = 0; r < this.sketchDims; r++)
        f32.set(projection.subarray(r * dimensions, (r + 1) * dimensions), this.projectionAt / 4 + r * this.stride);
    }
  }

  get size(): number {
    return this.slotOf.size;
  }

  /** Whether scoring runs in the WebAssembly SIMD kernel. */
  get simd(): boolean {
    return this.kernel instanceof WasmDotKernel;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  /** A copy of the stored (normalised) vector of a document. */
  get(id: string): Float32Array | undefined {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return undefined;
    const at = this.slabAt + slot * this.stride * 4;
    return new Float32Array(this.kernel.memory.buffer, at, this.dimensions).slice();
  }

  /** Stores the normalised vector of a document (replacing its previous one). */
  set(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new RangeError(`vector has ${vector.length} dimensions, the index ${this.dimensions}`);
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.ids.length;
      if (slot >= this.capacity) this.layout(Math.max(this.capacity * 2, slot + 1));
      this.ids[slot] = id;
      this.slotOf.set(id, slot);
      this.version++;
    }
    const unit = normalize(vector);
    const f32 = this.kernel.f32();
    f32.set(unit, this.slabAt / 4 + slot * this.stride);
    if (this.sketchDims)
      this.kernel.dotRows(
        this.projectionAt,
        this.stride,
        this.slabAt + slot * this.stride * 4,
        this.sketchDims,
        this.sketchesAt + slot * this.sketchStride * 4,
      );
  }

  delete(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.free.push(slot);
    this.version++;
    return true;
  }

  clear(): void {
    this.slotOf.clear();
    this.ids = [];
    this.free.length = 0;
    this.version++;
  }

  /**
   * The `limit` documents most similar to `query` (cosine), among those in `allowed` when given,
   * best first (ties by storage order). Only allowed documents are scored. `allowed` is expected
   * not to change between searches (the gateway's views are immutable): its row list is cached
   * by identity and size; a hit outside a changed set triggers a fresh scan, so none is returned.
   */
  search(query: Float32Array, options: { allowed?: ReadonlySet<string> | undefined; limit: number }): RankedHit[] {
    const hits = this.scan(query, options);
    const allowed = options.allowed;
    // The row list of an allowed set is cached by identity; a caller that changed the set since
    // (against the contract) must still never get a document outside it: scan again afresh.
    if (allowed && hits.some((h) => !allowed.has(h.id))) {
      this.rowsOf.delete(allowed);
      return this.scan(query, options);
    }
    return hits;
  }

  private scan(query: Float32Array, options: { allowed?: ReadonlySet<string> | undefined; limit: number }): RankedHit[] {
    if (query.length !== this.dimensions) throw new RangeError(`query has ${query.length} dimensions, the index ${this.dimensions}`);
    const limit = Math.floor(options.limit);
    if (limit <= 0 || this.slotOf.size === 0) return [];
    const q = normalize(query);
    const kernel = this.kernel;
    const f32 = kernel.f32();
    const i32 = kernel.i32();
    f32.set(q, this.qAt / 4);
    const top = this.top;
    let count: number;
    const allowed = options.allowed;
    if (allowed) {
      const rows = this.allowedRows(allowed);
      count = rows.length;
      i32.set(rows, this.slotsAt / 4);
    } else {
      count = 0;
      const base = this.slotsAt / 4;
      for (let slot = 0; slot < this.ids.length; slot++) if (this.ids[slot] !== undefined) i32[base + count++] = slot;
    }
    if (count === 0) return [];
    if (this.sketchDims && count > Math.max(this.rerank, limit) * 2) {
      // First pass over the sketches; only the best `rerank` are scored in full.
      kernel.dotRows(this.projectionAt, this.stride, this.qAt, this.sketchDims, this.qsAt);
      kernel.dotSlots(this.sketchesAt, this.sketchStride, this.qsAt, this.slotsAt, count, this.outAt);
      top.reset(Math.max(this.rerank, limit));
      top.offerAll(kernel.f32(), this.outAt / 4, kernel.i32(), this.slotsAt / 4, count);
      count = top.writeSlots(kernel.i32(), this.slotsAt / 4);
    }
    kernel.dotSlots(this.slabAt, this.stride, this.qAt, this.slotsAt, count, this.outAt);
    top.reset(limit);
    top.offerAll(kernel.f32(), this.outAt / 4, kernel.i32(), this.slotsAt / 4, count);
    return top.sorted().map(({ slot, score: s }) => ({ id: this.ids[slot]!, score: s }));
  }

  /**
   * Exact top `limit` by a full scan in double precision, in plain JavaScript (the reference the
   * SIMD kernel and the two-pass search are measured against).
   */
  searchExact(query: Float32Array, options: { allowed?: ReadonlySet<string> | undefined; limit: number }): RankedHit[] {
    if (query.length !== this.dimensions) throw new RangeError(`query has ${query.length} dimensions, the index ${this.dimensions}`);
    if (options.limit <= 0) return [];
    const q = normalize(query);
    const f32 = this.kernel.f32();
    const scored: { slot: number; score: number }[] = [];
    for (let slot = 0; slot < this.ids.length; slot++) {
      const id = this.ids[slot];
      if (id !== undefined && (!options.allowed || options.allowed.has(id)))
        scored.push({ slot, score: dot(f32, this.slabAt / 4 + slot * this.stride, q, this.dimensions) });
    }
    scored.sort((a, b) => b.score - a.score || a.slot - b.slot);
    return scored.slice(0, options.limit).map(({ slot, score: s }) => ({ id: this.ids[slot]!, score: s }));
  }

  /** Row numbers of the allowed ids that are stored, ascending; cached per set until an id is added or removed. */
  private allowedRows(allowed: ReadonlySet<string>): Int32Array {
    const cached = this.rowsOf.get(allowed);
    if (cached && cached.version === this.version && cached.size === allowed.size) return cached.rows;
    const rows: number[] = [];
    if (allowed.size < this.slotOf.size) {
      for (const id of allowed) {
        const slot = this.slotOf.get(id);
        if (slot !== undefined) rows.push(slot);
      }
      rows.sort((a, b) => a - b);
    } else {
      for (let slot = 0; slot < this.ids.length; slot++) {
        const id = this.ids[slot];
        if (id !== undefined && allowed.has(id)) rows.push(slot);
      }
    }
    const result = Int32Array.from(rows);
    this.rowsOf.set(allowed, { version: this.version, size: allowed.size, rows: result });
    return result;
  }

  /**
   * Lays the kernel's memory out for `capacity` rows: the query, the sketch of the query, the row
   * list, the scores, the vectors and the sketches (every region 16-byte aligned); stored rows
   * are moved to their new places.
   */
  private layout(capacity: number): void {
    capacity = roundUp(capacity, 16);
    const old = { capacity: this.capacity, slabAt: this.slabAt, sketchesAt: this.sketchesAt };
    const previous = old.capacity ? this.kernel.f32().slice(old.slabAt / 4) : undefined;
    this.qAt = 0;
    this.qsAt = this.qAt + this.stride * 4;
    this.projectionAt = this.qsAt + this.sketchStride * 4;
    this.slotsAt = this.projectionAt + this.sketchDims * this.stride * 4;
    this.outAt = this.slotsAt + capacity * 4;
    this.slabAt = this.outAt + capacity * 4;
    this.sketchesAt = this.slabAt + capacity * this.stride * 4;
    this.kernel.ensureBytes(this.sketchesAt + capacity * this.sketchStride * 4);
    this.capacity = capacity;
    if (previous) {
      const f32 = this.kernel.f32();
      f32.set(previous.subarray(0, old.capacity * this.stride), this.slabAt / 4);
      const sketchesFrom = (old.sketchesAt - old.slabAt) / 4;
      f32.set(previous.subarray(sketchesFrom, sketchesFrom + old.capacity * this.sketchStride), this.sketchesAt / 4);
    }
  }
}

/** Scores rows of the index's memory: `out[i] = <row slots[i], q>` (byte offsets, strides in floats). */
interface DotKernel {
  readonly memory: { readonly buffer: ArrayBufferLike };
  f32(): Float32Array;
  i32(): Int32Array;
  /** Makes the memory at least `bytes` long (keeping its contents). */
  ensureBytes(bytes: number): void;
  dotSlots(base: number, stride: number, q: number, slots: number, count: number, out: number): void;
  /** `out[r] = <row r, q>` for the `count` rows from `base` on. */
  dotRows(base: number, stride: number, q: number, count: number, out: number): void;
}

/** The part of the WebAssembly JS API used here (the project's TypeScript lib has no DOM types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { readonly exports: Record<string, unknown> };
}
const wasmApi = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
let wasmModule: object | null | undefined;

/** The kernel of `simd/dot.wat` in its own WebAssembly memory; null when the runtime lacks wasm SIMD. */
class WasmDotKernel implements DotKernel {
  private f32View: Float32Array;
  private i32View: Int32Array;
  private readonly exports: {
    dotSlots: (base: number, stride: number, q: number, slots: number, count: number, out: number) => void;
    dotRows: (base: number, stride: number, q: number, count: number, out: number) => void;
  };

  static create(): WasmDotKernel | null {
    if (wasmModule === undefined) {
      try {
        const bytes = Buffer.from(DOT_WASM_BASE64, 'base64');
        wasmModule = wasmApi?.validate(bytes) ? new wasmApi.Module(bytes) : null;
      } catch {
        wasmModule = null;
      }
    }
    return wasmModule && wasmApi ? new WasmDotKernel(new wasmApi.Instance(wasmModule)) : null;
  }

  private constructor(private readonly instance: { readonly exports: Record<string, unknown> }) {
    this.exports = instance.exports as unknown as WasmDotKernel['exports'];
    this.f32View = new Float32Array(this.memory.buffer);
    this.i32View = new Int32Array(this.memory.buffer);
  }

  get memory(): WasmMemory {
    return this.instance.exports.memory as WasmMemory;
  }

  f32(): Float32Array {
    return this.f32View;
  }

  i32(): Int32Array {
    return this.i32View;
  }

  ensureBytes(bytes: number): void {
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / 65536));
    // A grown memory detaches the old buffer: the views are made again.
    this.f32View = new Float32Array(this.memory.buffer);
    this.i32View = new Int32Array(this.memory.buffer);
  }

  dotSlots(base: number, stride: number, q: number, slots: number, count: number, out: number): void {
    this.exports.dotSlots(base, stride, q, slots, count, out);
  }

  dotRows(base: number, stride: number, q: number, count: number, out: number): void {
    this.exports.dotRows(base, stride, q, count, out);
  }
}

/** The same kernel in JavaScript (double-precision sums), for runtimes without wasm SIMD. */
class JsDotKernel implements DotKernel {
  memory = { buffer: new ArrayBuffer(0) as ArrayBufferLike };
  private f32View = new Float32Array(0);
  private i32View = new Int32Array(0);

  f32(): Float32Array {
    return this.f32View;
  }

  i32(): Int32Array {
    return this.i32View;
  }

  ensureBytes(bytes: number): void {
    if (bytes <= this.memory.buffer.byteLength) return;
    const buffer = new ArrayBuffer(bytes);
    new Uint8Array(buffer).set(new Uint8Array(this.memory.buffer));
    this.memory = { buffer };
    this.f32View = new Float32Array(buffer);
    this.i32View = new Int32Array(buffer);
  }

  dotSlots(base: number, stride: number, q: number, slots: number, count: number, out: number): void {
    const f32 = this.f32View;
    const i32 = this.i32View;
    const query = f32.subarray(q / 4, q / 4 + stride);
    for (let i = 0; i < count; i++) f32[out / 4 + i] = dot(f32, base / 4 + i32[slots / 4 + i]! * stride, query, stride);
  }

  dotRows(base: number, stride: number, q: number, count: number, out: number): void {
    const f32 = this.f32View;
    const query = f32.slice(q / 4, q / 4 + stride);
    for (let r = 0; r < count; r++) f32[out / 4 + r] = dot(f32, base / 4 + r * stride, query, stride);
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

/** Dot product of the first `n` floats of `q` with the vector starting at `offset` in `slab` (unrolled by four). */
function dot(slab: Float32Array, offset: number, q: Float32Array, n: number): number {
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

/** The k best (slot, score) pairs seen, kept in a min-heap of typed arrays reused across searches. */
class TopK {
  private slots = new Int32Array(0);
  private scores = new Float64Array(0);
  private n = 0;
  private k = 0;

  reset(k: number): void {
    this.k = k;
    this.n = 0;
    if (this.slots.length < k) {
      this.slots = new Int32Array(k);
      this.scores = new Float64Array(k);
    }
  }

  /** Offers `count` scores `f32[at + i]` of the rows `i32[slotsAt + i]`. */
  offerAll(f32: Float32Array, at: number, i32: Int32Array, slotsAt: number, count: number): void {
    const k = this.k;
    const scores = this.scores;
    const slots = this.slots;
    for (let i = 0; i < count; i++) {
      const score = f32[at + i]!;
      if (this.n < k) {
        if (Number.isNaN(score)) continue;
        slots[this.n] = i32[slotsAt + i]!;
        scores[this.n] = score;
        this.up(this.n++);
      } else if (score > scores[0]! || (score === scores[0]! && i32[slotsAt + i]! < slots[0]!)) {
        slots[0] = i32[slotsAt + i]!;
        scores[0] = score;
        this.down(0);
      }
    }
  }

  /** Writes the kept rows, ascending, at `i32[at…]`; returns how many. */
  writeSlots(i32: Int32Array, at: number): number {
    const kept = this.slots.slice(0, this.n).sort();
    i32.set(kept, at);
    return kept.length;
  }

  sorted(): { slot: number; score: number }[] {
    const out: { slot: number; score: number }[] = [];
    for (let i = 0; i < this.n; i++) out.push({ slot: this.slots[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.slot - b.slot);
  }

  /** Heap order: lower score first; at equal scores the later row is the worse one. */
  private less(a: number, b: number): boolean {
    const sa = this.scores[a]!;
    const sb = this.scores[b]!;
    return sa < sb || (sa === sb && this.slots[a]! > this.slots[b]!);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.n;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const slot = this.slots[a]!;
    this.slots[a] = this.slots[b]!;
    this.slots[b] = slot;
    const score = this.scores[a]!;
    this.scores[a] = this.scores[b]!;
    this.scores[b] = score;
  }
}
