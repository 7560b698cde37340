import { documentFields, type ToolDocument, type ToolDocumentFields } from './tool-document.js';
import { TOOL_SYNONYMS } from './synonyms.js';
import { tokenize, type TokenizeOptions } from './tokenizer.js';
import { TopKMiniSearch, type ScoringTerm } from './top-k-mini-search.js';
import { defaultWordVectors, VocabularyNeighbours, type WordVectors } from './word-vectors.js';

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
  /** The LLM's extra wording of the tool, when a provider wrote one (description-expansion.ts). */
  expansion: number;
}

/**
 * Field boosts from the labelled set (bench/search/run.ts): the tool name and the server name
 * carry most of the signal, argument descriptions the least. They were chosen on all the queries
 * before the benchmark split them into a dev and a held-out half; the dev-only sweep since then
 * finds nothing better by more than a query or two (BENCHMARKS.md, "Tool search").
 */
export const DEFAULT_BOOSTS: Readonly<FieldBoosts> = {
  name: 2,
  title: 1,
  description: 1,
  argumentNames: 0.25,
  argumentDescriptions: 0.1,
  serverName: 2.5,
  expansion: 0.5,
};

export interface KeywordIndexOptions {
  boosts?: Partial<FieldBoosts>;
  /** BM25 parameters (MiniSearch's BM25+: k1, b, and the lower bound d). */
  bm25?: { k: number; b: number; d: number };
  /**
   * Query terms of at least this many characters also match as prefixes (`screensh` →
   * `screenshot`); 0 = off. Default 6 (chosen on the benchmark's development half).
   */
  prefixMinLength?: number;
  /** Tokeniser switches (for measuring their effect; the defaults are the tuned ones). */
  tokenizer?: TokenizeOptions;
  /**
   * Boost of the stems field: name, title and description reduced to word stems, searched with
   * the stems of the query words (`deleting files` finds `delete_file`); 0 = no stems field.
   */
  stemsBoost?: number;
  /** The stemmer of the stems field. */
  stem?: (term: string) => string;
  /**
   * Query words and the words that also stand for them (`remove` → `delete`); a synonym's match
   * counts as the word's. Default {@link TOOL_SYNONYMS}; an empty map turns them off.
   */
  synonyms?: ReadonlyMap<string, readonly string[]>;
  /** Weight of a synonym's matches relative to the word's own. Default 0.5 (a dev-half sweep of 0.3–0.7 was flat). */
  synonymWeight?: number;
  /**
   * Query expansion by word vectors: each query word also searches for the indexed words nearest
   * to it ({@link VocabularyNeighbours}), weighted `weight × similarity` and counted as the word
   * itself. Off unless asked for (absent or `false`); `{}` takes {@link DEFAULT_EXPANSION}. Off by
   * default because it did not earn its cost: on the paraphrase set it found 1–2 more tools in the
   * top 5 of 184 queries, lost one at rank 1 on each half of queries.json, and costs 7 MiB of heap
   * and a first-time query p99 over 5 ms at 10,000 tools (BENCHMARKS.md, "Tool search").
   */
  expansion?: false | Partial<ExpansionOptions>;
  /**
   * A lexical thesaurus (e.g. WordNet's synonyms): each query word also searches for the words it
   * gives, each counted as the word itself at the weight it gives. Absent = none, the default: the
   * WordNet thesaurus measured through this (bench/search/wordnet-experiment.ts) lost more on
   * queries.json than it found on the paraphrases (BENCHMARKS.md, "Tool search").
   */
  thesaurus?: Thesaurus | null;
}

/** A word related to a query word, and the weight of its matches relative to the word's own. */
export interface RelatedWord {
  readonly term: string;
  readonly weight: number;
}

/** Related words of a query word (already tokenised: lower case), best first; [] when it knows none. */
export interface Thesaurus {
  related(word: string): readonly RelatedWord[];
}

/** Settings of word-vector query expansion (see {@link KeywordIndexOptions.expansion}). */
export interface ExpansionOptions {
  /** Neighbours per query word at most. */
  neighbours: number;
  /** Least cosine similarity of a neighbour. */
  minSimilarity: number;
  /** A neighbour's match counts `weight × similarity` of the word's own (below 1: it never outweighs an exact match of the same rarity). */
  weight: number;
  /**
   * Also expand query words that indexed names and descriptions already contain (true), or only
   * the words no tool uses, the vocabulary mismatch itself (false).
   */
  expandKnownWords: boolean;
  /** The table, read on first use; null = no expansion. */
  vectors: () => WordVectors | null;
}

/**
 * Chosen on the development half of queries.json and the tuning third of paraphrases.json
 * (bench/search/run.ts, BENCHMARKS.md "Tool search"); the held-out parts only report.
 */
export const DEFAULT_EXPANSION: Readonly<ExpansionOptions> = {
  neighbours: 8,
  minSimilarity: 0.45,
  weight: 0.4,
  expandKnownWords: false,
  vectors: () => defaultWordVectors(),
};

/** The derived field of word stems (see `stemsBoost`). */
const STEMS = 'stems';
const FIELDS: (keyof FieldBoosts)[] = ['name', 'title', 'description', 'argumentNames', 'argumentDescriptions', 'serverName', 'expansion'];
/** Distinct query terms used at most; more only cost time on hostile input. */
const MAX_QUERY_TERMS = 32;
/** Terms looked up per query at most, synonyms included (a query of 32 common verbs would walk 160 posting lists). */
const MAX_PLAN_TERMS = 64;
/**
 * Query words expanded by word vectors at most (each a scan of the index's vocabulary when not
 * cached, ~0.1–0.5 ms): a long query of unknown words stays within the latency budget.
 */
const MAX_EXPANDED_WORDS = 6;
/** Characters of a query read at most (a natural-language query is far shorter). */
export const MAX_QUERY_LENGTH = 2000;

/**
 * BM25 keyword index over tool documents (MiniSearch). Updates are incremental: replacing or
 * removing one document touches only its own postings, never a rebuild. Searching scores only
 * documents in the caller's allowed set and keeps only the best `limit` ({@link TopKMiniSearch}).
 */
export class KeywordIndex {
  private readonly ms: TopKMiniSearch<ToolDocumentFields>;
  private readonly boosts: FieldBoosts;
  private readonly prefixMinLength: number;
  private readonly bm25: { k: number; b: number; d: number } | undefined;
  private readonly tokenizer: TokenizeOptions;
  private readonly searchBoosts: Record<string, number>;
  private readonly stemsBoost: number;
  private readonly stem: (term: string) => string;
  private readonly synonyms: ReadonlyMap<string, readonly string[]>;
  private readonly synonymWeight: number;
  /** Each indexed document as added: removing it from MiniSearch needs its exact fields again. */
  private readonly docs = new Map<string, ToolDocument>();
  private readonly expansion: ExpansionOptions | null;
  private readonly thesaurus: Thesaurus | null;
  /** Words of indexed names, titles and descriptions not yet handed to {@link neighbours}. */
  private pendingVocabulary = new Set<string>();
  /** Every word of indexed names, titles and descriptions so far (never shrinks; bounded by the language). */
  private readonly vocabulary = new Set<string>();
  /** Created on the first search that expands (the table is read then, not at start); null = unavailable. */
  private neighbours: VocabularyNeighbours | null | undefined;

  constructor(options: KeywordIndexOptions = {}) {
    this.boosts = { ...DEFAULT_BOOSTS, ...options.boosts };
    this.prefixMinLength = options.prefixMinLength ?? 6;
    this.bm25 = options.bm25;
    this.tokenizer = options.tokenizer ?? {};
    this.searchBoosts = Object.fromEntries(Object.entries(this.boosts).filter(([, b]) => b > 0));
    this.stemsBoost = options.stemsBoost ?? 0;
    const stem = (this.stem = options.stem ?? ((t) => t));
    this.synonyms = options.synonyms ?? TOOL_SYNONYMS;
    this.synonymWeight = options.synonymWeight ?? 0.5;
    this.expansion = options.expansion === undefined || options.expansion === false ? null : { ...DEFAULT_EXPANSION, ...options.expansion };
    this.thesaurus = options.thesaurus ?? null;
    const tokenizer = this.tokenizer;
    this.ms = new TopKMiniSearch<ToolDocumentFields>({
      // A field boosted 0 is not indexed at all: fewer postings to walk per query.
      fields: [...FIELDS.filter((f) => this.boosts[f] > 0), ...(this.stemsBoost > 0 ? [STEMS] : [])],
      extractField: (doc, field) =>
        field === STEMS ? `${doc.name} ${doc.title} ${doc.description}` : doc[field as keyof ToolDocumentFields],
      storeFields: [],
      tokenize: (text, field) => (field === STEMS ? tokenize(text, tokenizer).map(stem) : tokenize(text, tokenizer)),
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
    this.remove(doc.id);
    this.ms.add(documentFields(doc));
    this.docs.set(doc.id, doc);
    if (this.expansion) {
      for (const term of tokenize(`${doc.name} ${doc.title ?? ''} ${doc.description ?? ''} ${doc.expansion ?? ''}`, this.tokenizer)) {
        if (this.vocabulary.has(term)) continue;
        this.vocabulary.add(term);
        this.pendingVocabulary.add(term);
      }
    }
  }

  /**
   * Removes a document; false when it was not indexed. Its postings go at once (MiniSearch's
   * `remove` with the document as it was added, not `discard`): stale postings would count in
   * document frequencies until a vacuum, and the top-k scorer reads those counts directly.
   */
  remove(id: string): boolean {
    const prev = this.docs.get(id);
    if (!prev) return false;
    this.ms.remove(documentFields(prev));
    this.docs.delete(id);
    return true;
  }

  /** Removes every document. */
  clear(): void {
    this.ms.removeAll();
    this.docs.clear();
  }

  /**
   * The best `limit` documents for `query` among those whose id is in `allowed` (every
   * document when `allowed` is undefined), best first. Documents outside `allowed` are skipped
   * before scoring, so they can neither appear nor take a place in the top `limit`.
   */
  search(query: string, options: { allowed?: ReadonlySet<string> | undefined; limit: number }): RankedHit[] {
    const terms = this.queryTerms(query);
    if (terms.length === 0 || options.limit <= 0) return [];
    const allowed = options.allowed;
    const minPrefix = this.prefixMinLength;
    const plan: ScoringTerm[] = [];
    const stemBoosts = { [STEMS]: this.stemsBoost };
    terms.forEach((term, group) => {
      plan.push({ term, group, prefix: minPrefix > 0 && term.length >= minPrefix });
      if (this.stemsBoost > 0) plan.push({ term: this.stem(term), group, prefix: false, boosts: stemBoosts });
      for (const synonym of this.synonyms.get(term) ?? []) {
        if (terms.includes(synonym) || plan.length >= MAX_PLAN_TERMS) continue;
        plan.push({ term: synonym, group, prefix: false, weight: this.synonymWeight });
        if (this.stemsBoost > 0)
          plan.push({ term: this.stem(synonym), group, prefix: false, boosts: stemBoosts, weight: this.synonymWeight });
      }
    });
    if (this.thesaurus) {
      const planned = new Set(plan.map((p) => p.term));
      terms.forEach((term, group) => {
        for (const r of this.thesaurus!.related(term)) {
          if (planned.has(r.term) || plan.length >= MAX_PLAN_TERMS) continue;
          planned.add(r.term);
          plan.push({ term: r.term, group, prefix: false, weight: r.weight });
        }
      });
    }
    const expansion = this.expansion;
    const vocabulary = expansion && this.vocabularyNeighbours();
    if (expansion && vocabulary) {
      const planned = new Set(plan.map((p) => p.term));
      let expanded = 0;
      terms.forEach((term, group) => {
        if (!expansion.expandKnownWords && this.vocabulary.has(term)) return;
        if (expanded++ >= MAX_EXPANDED_WORDS) return;
        for (const n of vocabulary.neighbours(term, expansion.neighbours, expansion.minSimilarity)) {
          if (planned.has(n.term) || plan.length >= MAX_PLAN_TERMS) continue;
          planned.add(n.term);
          plan.push({ term: n.term, group, prefix: false, weight: expansion.weight * n.similarity });
        }
      });
    }
    const hits = this.ms.topK(plan, {
      boosts: this.searchBoosts,
      bm25: this.bm25,
      limit: options.limit,
      allowedMask: allowed && this.ms.allowedMask(allowed),
    });
    // Second lock: whatever the scorer did, nothing outside `allowed` leaves this method.
    return allowed ? hits.filter((h) => allowed.has(h.id)) : hits;
  }

  /**
   * The ranking of the query words alone (no synonyms, no stems) through MiniSearch's own
   * `search()`, which scores every match and then sorts: the reference {@link search} is tested
   * against (with synonyms and stems off) and the baseline of the benchmark.
   */
  referenceSearch(query: string, options: { allowed?: ReadonlySet<string> | undefined; limit: number }): RankedHit[] {
    const terms = this.queryTerms(query);
    if (terms.length === 0 || options.limit <= 0) return [];
    const allowed = options.allowed;
    const minPrefix = this.prefixMinLength;
    const results = this.ms.search(terms.join(' '), {
      fields: Object.keys(this.searchBoosts),
      boost: this.searchBoosts,
      prefix: minPrefix > 0 ? (term) => term.length >= minPrefix : false,
      ...(this.bm25 ? { bm25: this.bm25 } : {}),
      ...(allowed ? { boostDocument: (id) => (allowed.has(id as string) ? 1 : 0) } : {}),
    });
    return results.slice(0, options.limit).map((r) => ({ id: r.id as string, score: r.score }));
  }

  /** The neighbour finder with every indexed word added; null when expansion is off or has no table. */
  private vocabularyNeighbours(): VocabularyNeighbours | null {
    if (this.neighbours === undefined) {
      const vectors = this.expansion?.vectors() ?? null;
      this.neighbours = vectors && new VocabularyNeighbours(vectors);
    }
    if (this.neighbours && this.pendingVocabulary.size > 0) {
      this.neighbours.addTerms(this.pendingVocabulary);
      this.pendingVocabulary = new Set();
    }
    return this.neighbours;
  }

  /** Distinct terms of a query, as the index tokenises documents. */
  private queryTerms(query: string): string[] {
    return [...new Set(tokenize(query.slice(0, MAX_QUERY_LENGTH), this.tokenizer))].slice(0, MAX_QUERY_TERMS);
  }
}
