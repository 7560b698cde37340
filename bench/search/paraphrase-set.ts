/**
 * The paraphrase set of the tool search benchmark: bench/search/paraphrases.json, 184 queries over
 * 50 servers of tools.json written (before any tuning) to avoid the expected tools' own words —
 * their names, description words and obvious stems — the way a person asks who has not read the
 * tool list ("parrot whatever I say" for `echo`, "ishikawa for the outage" for a fishbone chart).
 *
 * It is split once by a hash of the query text: a **tuning** third that settings may be chosen on
 * (with queries.json's dev half), and a **held-out** two thirds that is only reported.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface LabelledQuery {
  query: string;
  /** `server/name` of the tools that answer the query (any of them counts as a hit). */
  expected: string[];
}

/** FNV-1a, 32 bits: a fixed, content-based shuffle. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Reads paraphrases.json and checks that every expected tool exists. */
export function loadParaphrases(dir: string, toolIds: ReadonlySet<string>): LabelledQuery[] {
  const queries = JSON.parse(fs.readFileSync(path.join(dir, 'paraphrases.json'), 'utf8')) as LabelledQuery[];
  for (const q of queries)
    for (const e of q.expected) if (!toolIds.has(e)) throw new Error(`paraphrases.json: "${q.query}" expects unknown tool ${e}`);
  return queries;
}

/** The tuning third (sorted by a hash of the text, every third one); the rest is held out. */
export function paraphraseSplit(queries: LabelledQuery[]): { isTuning: (i: number) => boolean } {
  const order = queries.map((q, i) => ({ h: fnv1a(`paraphrase-split:${q.query}`), i })).sort((a, b) => a.h - b.h || a.i - b.i);
  const tuning = new Set(order.filter((_x, j) => j % 3 === 0).map((x) => x.i));
  return { isTuning: (i) => tuning.has(i) };
}
