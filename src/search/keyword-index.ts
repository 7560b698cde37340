import MiniSearch from 'minisearch';
import { documentFields, type ToolDocument, type ToolDocumentFields } from './tool-document.js';
import { tokenize, type TokenizeOptions } from './tokenizer.js';

/** A ranked search hit: document id and score (higher is better). */
export interface RankedHit {
  readonly id: string;
  readonly score: number;
}

/** Relative weight of each indexed field in the BM25 score. */
export interface FieldBoosts {
  name: number;
  title: number;
  description: number;
  argumentNames: number;
  argumentDescriptions: number;
  serverName: number;
}

/**
 * Field boosts tuned on the labelled set (bench/search/run.ts, "boost sweep": 297 settings, best
 * MRR@10 + Recall@5, checked by 2-fold cross-validation): the tool name and the server name carry
 * most of the signal, argument descriptions the least.
 */
export const DEFAULT_BOOSTS: Readonly<FieldBoosts> = {
  name: 2,
  title: 1,
  description: 1,
  argumentNames: 0.25,
  argumentDescriptions: 0.1,
  serverName: 2.5,
};

export interface KeywordIndexOptions {
  boosts?: Partial<FieldBoosts>;
  /** BM25 parameters (MiniSearch's BM25+: k1, b, and the lower bound d). */
  bm25?: { k: number; b: number; d: number };
  /** Query terms of at least this many characters also match as prefixes (`repo` → `repository`); 0 = off. */
  prefixMinLength?: number;
  /** Tokeniser switches (for measuring their effect; the defaults are the tuned ones). */
  tokenizer?: TokenizeOptions;
}

const FIELDS: (keyof FieldBoosts)[] = ['name', 'title', 'description', 'argumentNames', 'argumentDescriptions', 'serverName'];
/** Distinct query terms used at most; more only cost time on hostile input. */
const MAX_QUERY_TERMS = 32;
/** Characters of a query read at most (a natural-language query is far shorter). */
export const MAX_QUERY_LENGTH = 2000;

/**
 * BM25 keyword index over tool documents (MiniSearch). Updates are incremental: replacing or
 * removing one document touches only its own postings (MiniSearch discards the old version and
 * vacuums lazily), never a rebuild. Searching scores only documents in the caller's allowed set.
 */
export class KeywordIndex {
  private readonly ms: MiniSearch<ToolDocumentFields>;
  private readonly boosts: FieldBoosts;
  private readonly prefixMinLength: number;
  private readonly bm25: { k: number; b: number; d: number } | undefined;
  private readonly tokenizer: TokenizeOptions;
  private readonly searchBoosts: Record<string, number>;

  constructor(options: KeywordIndexOptions = {}) {
    this.boosts = { ...DEFAULT_BOOSTS, ...options.boosts };
    this.prefixMinLength = options.prefixMinLength ?? 5;
    this.bm25 = options.bm25;
    this.tokenizer = options.tokenizer ?? {};
    this.searchBoosts = Object.fromEntries(Object.entries(this.boosts).filter(([, b]) => b > 0));
    const tokenizer = this.tokenizer;
    this.ms = new MiniSearch<ToolDocumentFields>({
      // A field boosted 0 is not indexed at all: fewer postings to walk per query.
      fields: FIELDS.filter((f) => this.boosts[f] > 0),
      storeFields: [],
      tokenize: (text) => tokenize(text, tokenizer),
      processTerm: (term) => term,
      // Query strings reach MiniSearch already tokenised (see search()): split on spaces only.
      searchOptions: { tokenize: (text) => text.split(' '), processTerm: (term) => term },
      logger: () => undefined,
    });
  }

  /** Number of documents indexed. */
  get size(): number {
    return this.ms.documentCount;
  }

  has(id: string): boolean {
    return this.ms.has(id);
  }

  /** Adds the document, or replaces the one with the same id. */
  upsert(doc: ToolDocument): void {
    if (this.ms.has(doc.id)) this.ms.discard(doc.id);
    this.ms.add(documentFields(doc));
  }

  /** Removes a document; false when it was not indexed. */
  remove(id: string): boolean {
    if (!this.ms.has(id)) return false;
    this.ms.discard(id);
    return true;
  }

  /** Removes every document. */
  clear(): void {
    this.ms.removeAll();
  }

  /**
   * The best `limit` documents for `query` among those whose id is in `allowed` (every
   * document when `allowed` is undefined), best first. Documents outside `allowed` are skipped
   * while scoring, so they can neither appear nor take a place in the top `limit`.
   */
  search(query: string, options: { allowed?: ReadonlySet<string> | undefined; limit: number }): RankedHit[] {
    const terms = [...new Set(tokenize(query.slice(0, MAX_QUERY_LENGTH), this.tokenizer))].slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0 || options.limit <= 0) return [];
    const allowed = options.allowed;
    const minPrefix = this.prefixMinLength;
    const results = this.ms.search(terms.join(' '), {
      boost: this.searchBoosts,
      prefix: minPrefix > 0 ? (term) => term.length >= minPrefix : false,
      ...(this.bm25 ? { bm25: this.bm25 } : {}),
      ...(allowed ? { boostDocument: (id) => (allowed.has(id as string) ? 1 : 0) } : {}),
    });
    const hits: RankedHit[] = [];
    for (const r of results) {
      if (hits.length >= options.limit) break;
      const id = r.id as string;
      if (allowed && !allowed.has(id)) continue; // never reached (skipped while scoring); kept as a second lock
      hits.push({ id, score: r.score });
    }
    return hits;
  }
}
