/**
 * Issue 33, second try: a semantic score without any AI provider — each tool's SIF-weighted average
 * of GloVe word vectors (sif-vectors.ts) against the query's, cosine through {@link VectorIndex} —
 * fused with BM25 (keyword search with word-vector expansion, the default) the way hybrid search
 * fuses. Settings are compared on the paraphrases' tuning third and queries.json's dev half; the
 * held-out parts are only reported. Also the cost at 10,000 tools: building the document vectors,
 * their memory, and a search (query vector + scan + keyword + fusion) p50/p99.
 */
import { fuse, type FusionMethod } from '../../src/search/fusion.js';
import type { KeywordIndex, RankedHit } from '../../src/search/keyword-index.js';
import type { ToolDocument } from '../../src/search/tool-document.js';
import { DEFAULT_FUSION } from '../../src/search/tool-search.js';
import { VectorIndex } from '../../src/search/vector-index.js';
import type { WordVectors } from '../../src/search/word-vectors.js';
import type { LabelledQuery } from './paraphrase-set.js';
import { firstPrincipalComponent, removeComponent, SifVectors } from './sif-vectors.js';

export interface Quality {
  recall_at_1: number;
  recall_at_5: number;
  mrr_at_10: number;
  queries: number;
}
type Rank = (q: LabelledQuery, i: number) => string[];
type QualityOf = (queries: LabelledQuery[], rank: Rank, subset?: (i: number) => boolean) => Quality;

/** What a tool contributes to its vector: name parts, title and description (arguments and server name measured worse). */
export const sifText = (d: ToolDocument): string => `${d.name} ${d.title ?? ''} ${d.description ?? ''}`;

interface SifSetting {
  a: number;
  removePc: boolean;
}

/** A SIF semantic index over `docs`. */
export function sifIndex(vectors: WordVectors, docs: readonly ToolDocument[], setting: SifSetting) {
  const sif = new SifVectors(vectors, { a: setting.a });
  const raw = new Map<string, Float32Array>();
  for (const d of docs) {
    const v = sif.embed(sifText(d));
    if (v) raw.set(d.id, v);
  }
  const pc = setting.removePc ? firstPrincipalComponent(raw.values(), vectors.dims) : undefined;
  const index = new VectorIndex(vectors.dims, Math.max(256, raw.size));
  for (const [id, v] of raw) index.set(id, pc ? removeComponent(v, pc) : v);
  const search = (query: string, limit: number, allowed?: ReadonlySet<string>): RankedHit[] => {
    const v = sif.embed(query);
    if (!v) return [];
    return index.search(pc ? removeComponent(v, pc) : v, allowed ? { limit, allowed } : { limit });
  };
  return { index, search };
}

export function sifExperiment(input: {
  vectors: WordVectors;
  docs: ToolDocument[];
  queries: LabelledQuery[];
  isDev: (i: number) => boolean;
  paraphrases: LabelledQuery[];
  isTuning: (i: number) => boolean;
  keyword: KeywordIndex;
  quality: QualityOf;
}): Record<string, unknown> {
  const { vectors, docs, queries, isDev, paraphrases, isTuning, keyword, quality } = input;
  const report = (rank: (query: string) => string[]) => ({
    queries_dev: quality(queries, (q) => rank(q.query), isDev),
    queries_held_out: quality(
      queries,
      (q) => rank(q.query),
      (i) => !isDev(i),
    ),
    paraphrases_tuning: quality(paraphrases, (q) => rank(q.query), isTuning),
    paraphrases_held_out: quality(
      paraphrases,
      (q) => rank(q.query),
      (i) => !isTuning(i),
    ),
  });
  const out: Record<string, unknown> = {
    'keyword (default: BM25 + word-vector expansion)': report((q) => keyword.search(q, { limit: 10 }).map((h) => h.id)),
  };
  const settings: [string, SifSetting][] = [
    ['a=1e-3', { a: 1e-3, removePc: false }],
    ['a=1e-3, first component removed', { a: 1e-3, removePc: true }],
    ['a=1e-4, first component removed', { a: 1e-4, removePc: true }],
  ];
  const methods: [string, FusionMethod][] = [
    ['convex min-max α=0.8 (hybrid default)', DEFAULT_FUSION],
    ['convex min-max α=0.6', { kind: 'convex', alpha: 0.6, normalization: 'minmax' }],
    ['rrf k=60', { kind: 'rrf', k: 60 }],
    ['rrf k=10, keyword ×2', { kind: 'rrf', k: 10, keywordWeight: 2 }],
  ];
  for (const [name, setting] of settings) {
    const sif = sifIndex(vectors, docs, setting);
    out[`SIF ${name}: semantic alone`] = report((q) => sif.search(q, 10).map((h) => h.id));
    for (const [fname, method] of methods)
      out[`SIF ${name}: fused, ${fname}`] = report((q) =>
        fuse(keyword.search(q, { limit: 50 }), sif.search(q, 50), method, 10).map((h) => h.id),
      );
  }
  return out;
}

/** Cost at catalogue size: building the vectors, their bytes, and one fused search p50/p99 (ms). */
export function sifCost(
  vectors: WordVectors,
  catalog: ToolDocument[],
  keyword: KeywordIndex,
  queries: LabelledQuery[],
  rounds: number,
): Record<string, unknown> {
  const t0 = performance.now();
  const sif = sifIndex(vectors, catalog, { a: 1e-4, removePc: true });
  const buildMs = performance.now() - t0;
  const samples: number[] = [];
  for (let i = 0; i < rounds + 100; i++) {
    const q = queries[i % queries.length]!.query;
    const s = performance.now();
    fuse(keyword.search(q, { limit: 50 }), sif.search(q, 50), DEFAULT_FUSION, 10);
    if (i >= 100) samples.push(performance.now() - s);
  }
  samples.sort((a, b) => a - b);
  const at = (p: number) => Math.round(samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]! * 1000) / 1000;
  return {
    tools: catalog.length,
    build_ms: Math.round(buildMs),
    vector_bytes_mb: Math.round(((sif.index.size * vectors.dims * 4) / 2 ** 20) * 100) / 100,
    fused_search_ms: { p50: at(0.5), p99: at(0.99) },
  };
}
