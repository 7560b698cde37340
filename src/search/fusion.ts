import type { RankedHit } from './keyword-index.js';

/**
 * How keyword and semantic rankings are combined.
 * - `rrf`: reciprocal rank fusion, Σ wᵢ / (k + rankᵢ) (ranks from 1); weights default to 1.
 * - `convex`: α·keyword + (1−α)·semantic over scores normalised per list (min–max, or z-score);
 *   a document missing from a list gets that list's lowest normalised value.
 */
export type FusionMethod =
  | { kind: 'rrf'; k: number; keywordWeight?: number; semanticWeight?: number }
  | { kind: 'convex'; alpha: number; normalization: 'minmax' | 'zscore' };

/** A fused hit: the combined score and the ranks it had in each list (1-based), when present. */
export interface FusedHit {
  readonly id: string;
  readonly score: number;
  readonly keywordRank?: number;
  readonly semanticRank?: number;
}

/** Plain RRF with k = 60 (Cormack et al.), the baseline the benchmark compares against. */
export const RRF_60: FusionMethod = { kind: 'rrf', k: 60 };

/**
 * Fuses two rankings (each best first) into one, best first, at most `limit` long. Ties are
 * broken by the keyword rank, then the semantic rank, then the id, so the order is deterministic.
 */
export function fuse(keyword: readonly RankedHit[], semantic: readonly RankedHit[], method: FusionMethod, limit: number): FusedHit[] {
  const entries = new Map<string, { id: string; score: number; keywordRank?: number; semanticRank?: number }>();
  const entry = (id: string) => {
    let e = entries.get(id);
    if (!e) {
      e = { id, score: 0 };
      entries.set(id, e);
    }
    return e;
  };
  keyword.forEach((h, i) => (entry(h.id).keywordRank = i + 1));
  semantic.forEach((h, i) => (entry(h.id).semanticRank = i + 1));

  if (method.kind === 'rrf') {
    const wk = method.keywordWeight ?? 1;
    const ws = method.semanticWeight ?? 1;
    for (const e of entries.values()) {
      e.score = (e.keywordRank ? wk / (method.k + e.keywordRank) : 0) + (e.semanticRank ? ws / (method.k + e.semanticRank) : 0);
    }
  } else {
    const kn = normalizer(keyword, method.normalization);
    const sn = normalizer(semantic, method.normalization);
    const kScore = new Map(keyword.map((h) => [h.id, kn.of(h.score)]));
    const sScore = new Map(semantic.map((h) => [h.id, sn.of(h.score)]));
    for (const e of entries.values()) {
      e.score = method.alpha * (kScore.get(e.id) ?? kn.floor) + (1 - method.alpha) * (sScore.get(e.id) ?? sn.floor);
    }
  }
  const rank = (r: number | undefined) => r ?? Number.MAX_SAFE_INTEGER;
  return [...entries.values()]
    .sort(
      (a, b) =>
        b.score - a.score ||
        rank(a.keywordRank) - rank(b.keywordRank) ||
        rank(a.semanticRank) - rank(b.semanticRank) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    .slice(0, Math.max(0, limit));
}

/** Maps a list's raw scores onto a common scale; `floor` is the value of a document absent from it. */
function normalizer(hits: readonly RankedHit[], kind: 'minmax' | 'zscore'): { of: (s: number) => number; floor: number } {
  if (hits.length === 0) return { of: () => 0, floor: 0 };
  const scores = hits.map((h) => h.score);
  if (kind === 'minmax') {
    const max = Math.max(...scores);
    const min = Math.min(...scores);
    const span = max - min;
    return { of: (s) => (span > 0 ? (s - min) / span : 1), floor: 0 };
  }
  const mean = scores.reduce((a, b) => a + b, 0) / scores.length;
  const sd = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / scores.length);
  const of = (s: number) => (sd > 0 ? (s - mean) / sd : 0);
  return { of, floor: of(Math.min(...scores)) };
}
