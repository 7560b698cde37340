import MiniSearch, { type Options } from 'minisearch';

/** One term of a query plan. */
export interface ScoringTerm {
  readonly term: string;
  /** Also match indexed terms that start with `term`, weighted as MiniSearch weighs prefix matches. */
  readonly prefix: boolean;
  /** Multiplies the term's score (MiniSearch's `boostTerm`). Default 1. */
  readonly weight?: number;
  /**
   * Terms with the same group count once in the number of query terms a document matched (the
   * multiplier MiniSearch applies): a synonym or stem of a query word is that word again, not a
   * second word. Default: a group of its own.
   */
  readonly group?: number;
  /** Field boosts for this term instead of the query's (e.g. a stem searched in the stems field only). */
  readonly boosts?: Readonly<Record<string, number>>;
}

/** BM25+ parameters as MiniSearch names them. */
export interface Bm25Params {
  k: number;
  b: number;
  d: number;
}

/** MiniSearch's defaults (`defaultSearchOptions.bm25` and `weights.prefix`). */
const DEFAULT_BM25: Bm25Params = { k: 1.2, b: 0.7, d: 0.5 };
const PREFIX_WEIGHT = 0.375;
/** Term groups scored at most: the matched-groups count is kept as a 32-bit mask per document. */
export const MAX_SCORING_TERMS = 32;

/**
 * MiniSearch with a top-k search over its own inverted index. `MiniSearch.search()` builds a
 * result object (matched terms, fields) for every matching document and sorts them all: at
 * 10,000 tools a query matching most of them spends milliseconds on objects nobody reads. `topK`
 * walks the same postings (the protected index members MiniSearch keeps for subclasses), adds the
 * same BM25+ scores into a reused typed-array accumulator, skips documents outside the caller's
 * set before scoring them, and keeps only the best `limit`. Scores equal `search()`'s with OR
 * combination, prefix matching and field boosts (a unit test holds the two together), including
 * MiniSearch's final multiplication by the number of query terms a document matched.
 */
export class TopKMiniSearch<T> extends MiniSearch<T> {
  private scores = new Float64Array(0);
  private matched = new Uint32Array(0);
  private touched = new Int32Array(0);
  /** Field lengths by short id × field (MiniSearch's own are a Map of arrays: two lookups per posting). */
  private lengths = new Float64Array(0);
  private readonly stride: number;
  /** Allowed sets as masks by short id, cached per set (by identity) while no document is added. */
  private readonly masks = new WeakMap<ReadonlySet<string>, { nextId: number; size: number; mask: Uint8Array }>();

  constructor(options: Options<T>) {
    super(options);
    this.stride = Math.max(1, options.fields.length);
  }

  /** Adds a document (MiniSearch's `add`) and copies its field lengths for {@link topK}. */
  override add(document: T): void {
    super.add(document);
    const shortId = this._nextId - 1;
    this.ensureCapacity(this._nextId);
    const lengths = this._fieldLength.get(shortId);
    const base = shortId * this.stride;
    for (let f = 0; f < this.stride; f++) this.lengths[base + f] = lengths?.[f] ?? 0;
  }

  /**
   * `allowed` as a mask by short id (1 = allowed), so the scorer tests a byte instead of hashing
   * an id per posting. Cached per set object until a document is added (short ids are never
   * reused, and removed documents have no postings left), or the set's size changes.
   */
  allowedMask(allowed: ReadonlySet<string>): Uint8Array {
    const cached = this.masks.get(allowed);
    if (cached && cached.nextId === this._nextId && cached.size === allowed.size) return cached.mask;
    const mask = new Uint8Array(this._nextId);
    if (allowed.size < this._documentIds.size) {
      for (const id of allowed) {
        const shortId = this._idToShortId.get(id);
        if (shortId !== undefined) mask[shortId] = 1;
      }
    } else {
      this._documentIds.forEach((id, shortId) => {
        if (allowed.has(id as string)) mask[shortId] = 1;
      });
    }
    this.masks.set(allowed, { nextId: this._nextId, size: allowed.size, mask });
    return mask;
  }

  /**
   * The best `limit` documents (external id and score), best first; ties in the order the
   * documents were first matched, as MiniSearch orders them. Only ids for which `allowed`
   * returns true (or whose short id is set in `allowedMask`, see {@link allowedMask}) are scored.
   */
  topK(
    terms: readonly ScoringTerm[],
    options: {
      boosts: Readonly<Record<string, number>>;
      bm25?: Bm25Params | undefined;
      limit: number;
      allowed?: ((id: string) => boolean) | undefined;
      allowedMask?: Uint8Array | undefined;
    },
  ): { id: string; score: number }[] {
    const limit = Math.floor(options.limit);
    if (limit <= 0 || terms.length === 0) return [];
    const { k, b, d } = options.bm25 ?? DEFAULT_BM25;
    const allowed = options.allowed;
    const mask = options.allowedMask;
    const docIds = this._documentIds;
    const stride = this.stride;
    const totalCount = this._documentCount;
    const fieldsOf = (boosts: Readonly<Record<string, number>>) => {
      const fields: { id: number; boost: number; avg: number }[] = [];
      for (const [name, boost] of Object.entries(boosts)) {
        const id = this._fieldIds[name];
        if (id === undefined || !(boost > 0)) continue;
        fields.push({ id, boost, avg: this._avgFieldLength[id] ?? 1 });
      }
      return fields;
    };
    const queryFields = fieldsOf(options.boosts);
    this.ensureCapacity(this._nextId);
    const scores = this.scores;
    const matched = this.matched;
    const touched = this.touched;
    const lengths = this.lengths;
    let touchedCount = 0;

    const scoreTerm = (bit: number, weight: number, data: Map<number, Map<number, number>>, fields: typeof queryFields) => {
      for (const field of fields) {
        const postings = data.get(field.id);
        if (!postings) continue;
        // MiniSearch counts every posting of the field, discarded documents included, until a vacuum.
        const idf = Math.log(1 + (totalCount - postings.size + 0.5) / (postings.size + 0.5));
        const fieldWeight = weight * field.boost;
        const avg = field.avg;
        const fieldId = field.id;
        // forEach, not for…of: no [key, value] pair per posting (this loop is the whole cost of a search).
        postings.forEach((tf, shortId) => {
          if (matched[shortId] === 0) {
            if (mask && mask[shortId] !== 1) return;
            if (!mask && (docIds.get(shortId) === undefined || (allowed && !allowed(docIds.get(shortId) as string)))) return;
            touched[touchedCount++] = shortId;
            scores[shortId] = 0;
          }
          const length = lengths[shortId * stride + fieldId]!;
          scores[shortId]! += fieldWeight * (idf * (d + (tf * (k + 1)) / (tf + k * (1 - b + (b * length) / avg))));
          matched[shortId]! |= bit;
        });
      }
    };

    // Keep the best `limit` in a small sorted array: O(matches · log limit) comparisons, no full
    // sort; a later document only displaces a strictly lower score (MiniSearch's stable sort).
    const best: { shortId: number; score: number }[] = [];
    try {
      const groups = new Map<number, number>();
      for (const [i, query] of terms.entries()) {
        const group = query.group ?? -1 - i;
        let bit = groups.get(group);
        if (bit === undefined) {
          if (groups.size >= MAX_SCORING_TERMS) continue;
          bit = 1 << groups.size;
          groups.set(group, bit);
        }
        const fields = query.boosts ? fieldsOf(query.boosts) : queryFields;
        const weight = query.weight ?? 1;
        const exact = this._index.get(query.term);
        if (exact) scoreTerm(bit, weight, exact, fields);
        if (!query.prefix) continue;
        for (const [term, data] of this._index.atPrefix(query.term)) {
          const distance = term.length - query.term.length;
          if (distance === 0) continue;
          scoreTerm(bit, weight * ((PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance)), data, fields);
        }
      }

      for (let i = 0; i < touchedCount; i++) {
        const shortId = touched[i]!;
        const score = scores[shortId]! * popcount(matched[shortId]!);
        if (best.length === limit && !(score > best[limit - 1]!.score)) continue;
        let lo = 0;
        let hi = best.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (best[mid]!.score >= score) lo = mid + 1;
          else hi = mid;
        }
        best.splice(lo, 0, { shortId, score });
        if (best.length > limit) best.pop();
      }
    } finally {
      for (let i = 0; i < touchedCount; i++) matched[touched[i]!] = 0;
    }
    return best.map((h) => ({ id: docIds.get(h.shortId) as string, score: h.score }));
  }

  private ensureCapacity(size: number): void {
    if (this.scores.length >= size) return;
    const capacity = Math.max(size, this.scores.length * 2, 1024);
    this.scores = new Float64Array(capacity);
    this.matched = new Uint32Array(capacity);
    this.touched = new Int32Array(capacity);
    const lengths = new Float64Array(capacity * this.stride);
    lengths.set(this.lengths);
    this.lengths = lengths;
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
