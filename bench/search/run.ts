/**
 * Tool search benchmark (PERFORMANCE.md B6; issue 9 "The search").
 *
 * Quality: Recall@1, Recall@5 and MRR@10 of keyword, semantic and hybrid search on the labelled
 * set (bench/search/tools.json: tools harvested from MCP servers published on npm;
 * bench/search/queries.json: natural-language queries with the expected tools). Semantic search
 * uses the deterministic loopback embedding server (test/helpers/embedding-server.ts, OpenAI wire
 * format). Also: tokeniser ablations, a field-boost and BM25 sweep (2-fold cross-validated), and
 * fusion alternatives.
 *
 * Speed: over 10,000 tools from 200 servers, `search` p50/p99 keyword and hybrid (query embedding
 * excluded: query vectors are embedded before timing), with all tools and with a 1,000-tool
 * allowed set; time to apply one changed tool; full index build time and memory.
 *
 * Usage: npm run bench:search   (BENCH_QUICK=1 for a short run). Results: bench/results/search-latest.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { stemmer } from 'stemmer';
import { createLogger } from '../../src/logger.js';
import type { Embedder } from '../../src/search/embedding.js';
import { fuse, type FusionMethod } from '../../src/search/fusion.js';
import { DEFAULT_BOOSTS, KeywordIndex, type KeywordIndexOptions, type RankedHit } from '../../src/search/keyword-index.js';
import { embeddingText, toToolDocument, type ToolDocument } from '../../src/search/tool-document.js';
import { DEFAULT_FUSION, ToolSearch } from '../../src/search/tool-search.js';
import { VectorIndex } from '../../src/search/vector-index.js';
import { openAiEmbedder, startEmbeddingServer, type EmbeddingServer } from '../../test/helpers/embedding-server.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const QUICK = process.env.BENCH_QUICK === '1';
const RESULTS = path.join(HERE, '..', 'results', 'search-latest.json');
const logger = createLogger({ logLevel: 'silent' });

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

interface HarvestedTool {
  server: string;
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
}
interface LabelledQuery {
  query: string;
  /** `server/name` of the tools that answer the query (usually one). */
  expected: string[];
}

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const keyOf = (t: { server: string; name: string }) => `${t.server}/${t.name}`;

function loadSet(): { docs: ToolDocument[]; queries: LabelledQuery[] } {
  const tools = (JSON.parse(fs.readFileSync(path.join(HERE, 'tools.json'), 'utf8')) as { tools: HarvestedTool[] }).tools;
  const queries = JSON.parse(fs.readFileSync(path.join(HERE, 'queries.json'), 'utf8')) as LabelledQuery[];
  const docs = tools.map((t) =>
    toToolDocument({
      id: keyOf(t),
      name: t.name,
      title: t.title ?? null,
      description: t.description,
      serverName: t.server,
      inputSchema: t.inputSchema,
    }),
  );
  const ids = new Set(docs.map((d) => d.id));
  for (const q of queries)
    for (const e of q.expected) if (!ids.has(e)) throw new Error(`queries.json: "${q.query}" expects unknown tool ${e}`);
  return { docs, queries };
}

interface Quality {
  recall_at_1: number;
  recall_at_5: number;
  mrr_at_10: number;
  queries: number;
}

/** Recall@1, Recall@5 and MRR@10 of a ranker (query index → ids, best first). */
function quality(queries: LabelledQuery[], rank: (q: LabelledQuery, i: number) => string[], subset?: (i: number) => boolean): Quality {
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  let n = 0;
  queries.forEach((q, i) => {
    if (subset && !subset(i)) return;
    n++;
    const ids = rank(q, i).slice(0, 10);
    const pos = ids.findIndex((id) => q.expected.includes(id));
    if (pos === 0) r1++;
    if (pos >= 0 && pos < 5) r5++;
    if (pos >= 0) mrr += 1 / (pos + 1);
  });
  return { recall_at_1: round(r1 / n), recall_at_5: round(r5 / n), mrr_at_10: round(mrr / n), queries: n };
}

function keywordIndex(docs: ToolDocument[], options?: KeywordIndexOptions): KeywordIndex {
  const index = new KeywordIndex(options);
  for (const d of docs) index.upsert(d);
  return index;
}

async function embedAll(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += 256) out.push(...(await embedder.embed(texts.slice(i, i + 256), AbortSignal.timeout(60_000))));
  return out;
}

interface Timing {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

function percentiles(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
  return { p50_ms: round(at(50), 4), p99_ms: round(at(99), 4), max_ms: round(s[s.length - 1]!, 4) };
}

/**
 * Times `fn` as wall-clock and as process CPU time (user + system, from getrusage). On a shared,
 * loaded machine the wall clock includes time the process waited for a core; CPU time does not.
 */
async function timed(fn: () => unknown): Promise<{ wall: number; cpu: number }> {
  const c = process.cpuUsage();
  const t = performance.now();
  await fn();
  const wall = performance.now() - t;
  const d = process.cpuUsage(c);
  return { wall, cpu: (d.user + d.system) / 1000 };
}

function timings(samples: { wall: number; cpu: number }[]): { wall: Timing; cpu: Timing } {
  return { wall: percentiles(samples.map((s) => s.wall)), cpu: percentiles(samples.map((s) => s.cpu)) };
}

/** 10,000 tools from 200 servers: the harvested tools dealt round-robin to 200 servers, 50 each. */
function syntheticCatalog(docs: ToolDocument[], servers = 200, perServer = 50): ToolDocument[] {
  const out: ToolDocument[] = [];
  let k = 0;
  for (let s = 0; s < servers; s++) {
    for (let t = 0; t < perServer; t++, k++) {
      const base = docs[k % docs.length]!;
      const serverName = `${base.serverName}-${s}`;
      out.push({ ...base, id: `${serverName}/${base.name}#${t}`, serverName });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const started = Date.now();
  const { docs, queries } = loadSet();
  const servers = new Set(docs.map((d) => d.serverName));
  console.log(`labelled set: ${docs.length} tools from ${servers.size} servers, ${queries.length} queries`);
  const results: Record<string, unknown> = {
    run_at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, load_avg_1m: round(os.loadavg()[0]!, 2) },
    labelled_set: { tools: docs.length, servers: servers.size, queries: queries.length },
  };

  // ---- Keyword quality, tokeniser ablations -------------------------------------------------
  const base = keywordIndex(docs);
  const kwRank = (index: KeywordIndex) => (q: LabelledQuery) => index.search(q.query, { limit: 10 }).map((h) => h.id);
  const keyword = quality(queries, kwRank(base));
  const ablations: Record<string, Quality> = { default: keyword };
  const variants: [string, KeywordIndexOptions][] = [
    ['plural stemming', { tokenizer: { stem: true } }],
    ['Porter stemming (stemmer)', { tokenizer: { stem: stemmer } }],
    ['no joined identifiers', { tokenizer: { compounds: false } }],
    ['no stop words dropped', { tokenizer: { stopWords: false } }],
    ['no prefix matching', { prefixMinLength: 0 }],
    ['prefix from 3 chars', { prefixMinLength: 3 }],
    ['prefix from 4 chars', { prefixMinLength: 4 }],
    ['prefix from 6 chars', { prefixMinLength: 6 }],
    ['equal field boosts', { boosts: { name: 1, title: 1, description: 1, argumentNames: 1, argumentDescriptions: 1, serverName: 1 } }],
  ];
  for (const [name, options] of variants) ablations[name] = quality(queries, kwRank(keywordIndex(docs, options)));
  results.keyword_ablations = ablations;

  // ---- Field boost and BM25 sweep, 2-fold cross-validated --------------------------------------
  const grid: KeywordIndexOptions[] = [];
  for (const name of [1.5, 2, 3, 5])
    for (const title of [1, 2])
      for (const serverName of [0.5, 1, 1.5, 2.5])
        for (const argumentNames of [0.25, 0.5, 1])
          for (const argumentDescriptions of [0.1, 0.25, 0.5])
            grid.push({ boosts: { name, title, description: 1, serverName, argumentNames, argumentDescriptions } });
  for (const k of [0.9, 1.2, 1.6]) for (const b of [0.5, 0.7, 0.9]) grid.push({ bm25: { k, b, d: 0.5 } });
  const sweep = (QUICK ? grid.slice(0, 20) : grid).map((options) => {
    const rank = kwRank(keywordIndex(docs, options));
    return {
      options,
      even: quality(queries, rank, (i) => i % 2 === 0),
      odd: quality(queries, rank, (i) => i % 2 === 1),
      all: quality(queries, rank),
    };
  });
  const score = (q: Quality) => q.mrr_at_10 + q.recall_at_5;
  const bestEven = sweep.reduce((a, b) => (score(b.even) > score(a.even) ? b : a));
  const bestOdd = sweep.reduce((a, b) => (score(b.odd) > score(a.odd) ? b : a));
  const bestAll = sweep.reduce((a, b) => (score(b.all) > score(a.all) ? b : a));
  results.boost_sweep = {
    configurations: sweep.length,
    default_boosts: DEFAULT_BOOSTS,
    default_all: keyword,
    best_on_all: { options: bestAll.options, quality: bestAll.all },
    cross_validated: {
      tuned_on_even_scored_on_odd: {
        options: bestEven.options,
        quality: bestEven.odd,
        default_on_odd: quality(queries, kwRank(base), (i) => i % 2 === 1),
      },
      tuned_on_odd_scored_on_even: {
        options: bestOdd.options,
        quality: bestOdd.even,
        default_on_even: quality(queries, kwRank(base), (i) => i % 2 === 0),
      },
    },
  };

  // ---- Semantic and hybrid quality ----------------------------------------------------------
  const server: EmbeddingServer = await startEmbeddingServer();
  const semanticResults: Record<string, unknown> = {};
  const fusionResults: Record<string, Quality> = {};
  let hybrid: Quality | undefined;
  let semantic: Quality | undefined;
  try {
    for (const dims of [256, 1024]) {
      const embedder = openAiEmbedder(server.url, `hash-${dims}`, { dimensions: dims });
      const docVectors = await embedAll(
        embedder,
        docs.map((d) => embeddingText(d)),
      );
      const queryVectors = await embedAll(
        embedder,
        queries.map((q) => q.query),
      );
      const vectors = new VectorIndex(dims);
      docs.forEach((d, i) => vectors.set(d.id, docVectors[i]!));
      const semRank = (_q: LabelledQuery, i: number) => vectors.search(queryVectors[i]!, { limit: 10 }).map((h) => h.id);
      const sem = quality(queries, semRank);
      semanticResults[`hash-${dims}`] = sem;
      if (dims !== 256) continue;
      semantic = sem;
      const kwLists: RankedHit[][] = queries.map((q) => base.search(q.query, { limit: 50 }));
      const semLists: RankedHit[][] = queries.map((_q, i) => vectors.search(queryVectors[i]!, { limit: 50 }));
      const methods: [string, FusionMethod][] = [
        ['rrf k=60', { kind: 'rrf', k: 60 }],
        ['rrf k=20', { kind: 'rrf', k: 20 }],
        ['rrf k=60, keyword ×1.5', { kind: 'rrf', k: 60, keywordWeight: 1.5 }],
        ['rrf k=60, keyword ×2', { kind: 'rrf', k: 60, keywordWeight: 2 }],
        ['rrf k=60, keyword ×3', { kind: 'rrf', k: 60, keywordWeight: 3 }],
        ['rrf k=20, keyword ×2', { kind: 'rrf', k: 20, keywordWeight: 2 }],
        ['rrf k=10, keyword ×3', { kind: 'rrf', k: 10, keywordWeight: 3 }],
        ...[0.3, 0.5, 0.6, 0.7, 0.8, 0.9].map((alpha): [string, FusionMethod] => [
          `convex min-max α=${alpha}`,
          { kind: 'convex', alpha, normalization: 'minmax' },
        ]),
        ...[0.5, 0.7].map((alpha): [string, FusionMethod] => [
          `convex z-score α=${alpha}`,
          { kind: 'convex', alpha, normalization: 'zscore' },
        ]),
      ];
      for (const [name, method] of methods) {
        fusionResults[name] = quality(queries, (_q, i) => fuse(kwLists[i]!, semLists[i]!, method, 10).map((h) => h.id));
      }
      hybrid = quality(queries, (_q, i) => fuse(kwLists[i]!, semLists[i]!, DEFAULT_FUSION, 10).map((h) => h.id));
      // Which queries keyword search misses at 5 (for the record, to read rather than to tune on).
      results.keyword_misses_at_5 = queries
        .filter(
          (q) =>
            !kwRank(base)(q)
              .slice(0, 5)
              .some((id) => q.expected.includes(id)),
        )
        .map((q) => ({ query: q.query, expected: q.expected, got: kwRank(base)(q).slice(0, 3) }));
    }
  } finally {
    await server.close();
  }
  results.quality = { keyword, semantic_hash_256: semantic, hybrid_default_fusion: hybrid, default_fusion: DEFAULT_FUSION };
  results.semantic_by_dimensions = semanticResults;
  results.fusion = fusionResults;

  // ---- Speed over 10,000 tools from 200 servers --------------------------------------------
  results.speed = await speed(docs, queries);
  results.duration_s = round((Date.now() - started) / 1000, 1);

  fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
  fs.writeFileSync(RESULTS, JSON.stringify(results, null, 2) + '\n');
  printSummary(results);
}

async function speed(labelled: ToolDocument[], queries: LabelledQuery[]): Promise<Record<string, unknown>> {
  const catalog = syntheticCatalog(labelled);
  const allIds = new Set(catalog.map((d) => d.id));
  // A member's view: 1,000 tools of 20 servers.
  const memberIds = new Set(catalog.filter((_d, i) => Math.floor(i / 50) % 10 === 0).map((d) => d.id));
  const rounds = QUICK ? 500 : 3000;

  // Keyword index build time and memory.
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let t0 = performance.now();
  const search = new ToolSearch({ logger });
  const build = await timed(() => {
    for (const d of catalog) search.upsert(d);
  });
  const buildMs = build.wall;
  gc();
  const keywordHeap = process.memoryUsage().heapUsed - heapBefore;

  const timeSearches = async (allowed: ReadonlySet<string>) => {
    const samples: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < rounds + 200; i++) {
      const q = queries[i % queries.length]!.query;
      const s = await timed(() => search.search({ query: q, allowed, limit: 10 }));
      if (i >= 200) samples.push(s);
    }
    return timings(samples);
  };
  const keywordAll = await timeSearches(allIds);
  const keywordMember = await timeSearches(memberIds);

  // One tool changes: time until the index answers with the new text.
  const updateSamples: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < (QUICK ? 50 : 300); i++) {
    const victim = catalog[(i * 7919) % catalog.length]!;
    // A word found in no other tool (letters only, so the tokeniser keeps it whole).
    const marker = `zebracorn${i.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)]!)}`;
    const changed = { ...victim, description: `${victim.description} Adds ${marker} support.` };
    let hits: { id: string }[] = [];
    updateSamples.push(
      await timed(() => {
        search.upsert(changed);
        hits = search.keywordSearch(marker, allIds, 1);
      }),
    );
    if (hits[0]?.id !== victim.id) throw new Error('changed tool not found after update');
  }
  const removeSamples: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < (QUICK ? 50 : 300); i++) {
    const victim = catalog[(i * 104729) % catalog.length]!;
    removeSamples.push(
      await timed(() => {
        search.remove(victim.id);
        search.upsert(victim);
      }),
    );
  }

  // Hybrid: embed all 10,000 texts through the loopback server in the background, then time search
  // with query vectors already cached (the embedding call excluded).
  const server = await startEmbeddingServer();
  const hybridResults: Record<string, unknown> = {};
  try {
    for (const dims of [256, 1536]) {
      const embedder = openAiEmbedder(server.url, `hash-${dims}`, { dimensions: dims });
      gc();
      const before = process.memoryUsage();
      t0 = performance.now();
      search.setEmbedder(embedder);
      await search.whenEmbedded();
      const embedAllMs = performance.now() - t0;
      gc();
      const after = process.memoryUsage();
      if (search.embeddingStatus().embedded !== catalog.length) throw new Error('not everything embedded');
      for (const q of queries) await search.search({ query: q.query, allowed: allIds, limit: 10 }); // warm the query vector cache
      const all = await timeSearches(allIds);
      const member = await timeSearches(memberIds);
      // One changed text: re-embedded in the background (loopback server round trip included).
      const reembed: number[] = [];
      for (let i = 0; i < (QUICK ? 10 : 40); i++) {
        const victim = catalog[(i * 31) % catalog.length]!;
        t0 = performance.now();
        search.upsert({ ...victim, description: `${victim.description} (v${dims}.${i})` });
        await search.whenEmbedded();
        reembed.push(performance.now() - t0);
      }
      const mode = (await search.search({ query: queries[0]!.query, allowed: allIds, limit: 10 })).mode;
      if (mode !== 'hybrid') throw new Error(`expected hybrid, got ${mode}`);
      hybridResults[`dims_${dims}`] = {
        embed_all_10k_via_loopback_ms: round(embedAllMs, 1),
        vector_memory_mb: round((after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / 2 ** 20, 1),
        search_all_10k: all,
        search_member_1k: member,
        one_change_reembedded_ms: percentiles(reembed),
      };
      search.setEmbedder(null);
    }
  } finally {
    search.close();
    await server.close();
  }

  return {
    catalog: { tools: catalog.length, servers: 200, member_allowed_set: memberIds.size, timed_searches: rounds },
    keyword_build_ms: round(buildMs, 1),
    keyword_build_cpu_ms: round(build.cpu, 1),
    keyword_build_per_tool_us: round((buildMs * 1000) / catalog.length, 1),
    keyword_index_memory_mb: round(keywordHeap / 2 ** 20, 1),
    keyword_search_all_10k: keywordAll,
    keyword_search_member_1k: keywordMember,
    update_one_tool_and_search_ms: timings(updateSamples),
    remove_and_readd_one_tool_ms: timings(removeSamples),
    hybrid: hybridResults,
  };
}

function printSummary(r: Record<string, any>): void {
  const row = (name: string, q: Quality) => `| ${name} | ${q.recall_at_1} | ${q.recall_at_5} | ${q.mrr_at_10} |`;
  const lines = ['', '| ranking | Recall@1 | Recall@5 | MRR@10 |', '|---|---|---|---|'];
  lines.push(row('keyword (BM25)', r.quality.keyword));
  lines.push(row('semantic (hash-256 loopback)', r.quality.semantic_hash_256));
  lines.push(row('hybrid (default fusion)', r.quality.hybrid_default_fusion));
  lines.push('', '| keyword variant | Recall@1 | Recall@5 | MRR@10 |', '|---|---|---|---|');
  for (const [k, q] of Object.entries(r.keyword_ablations)) lines.push(row(k, q as Quality));
  lines.push('', '| fusion | Recall@1 | Recall@5 | MRR@10 |', '|---|---|---|---|');
  for (const [k, q] of Object.entries(r.fusion)) lines.push(row(k, q as Quality));
  lines.push('', `boost sweep: ${JSON.stringify(r.boost_sweep, null, 1)}`);
  lines.push('', `speed: ${JSON.stringify(r.speed, null, 1)}`);
  console.log(lines.join('\n'));
  console.log(`\nwritten to ${path.relative(process.cwd(), RESULTS)} (${r.duration_s} s)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
