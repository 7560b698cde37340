/**
 * The labelled set of the tool search benchmark: the harvested tools of bench/search/tools.json as
 * tool documents, and bench/search/queries.json, checked against them and split once by a hash of
 * the query text into a dev half (where every setting of the benchmark is chosen) and a held-out
 * half (only reported). The paraphrase set and its split are in paraphrase-set.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { toToolDocument, type ToolDocument } from '../../src/search/tool-document.js';
import { fnv1a, type LabelledQuery } from './paraphrase-set.js';

/** A tool as bench/search/harvest.ts wrote it to tools.json. */
interface HarvestedTool {
  server: string;
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** tools.json as documents (id `server/name`) and queries.json, whose expected tools must all exist. */
export function loadLabelledSet(dir: string): { docs: ToolDocument[]; queries: LabelledQuery[] } {
  const tools = (JSON.parse(fs.readFileSync(path.join(dir, 'tools.json'), 'utf8')) as { tools: HarvestedTool[] }).tools;
  const queries = JSON.parse(fs.readFileSync(path.join(dir, 'queries.json'), 'utf8')) as LabelledQuery[];
  const docs = tools.map((t) =>
    toToolDocument({
      id: `${t.server}/${t.name}`,
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

/** The dev half of the labelled queries: sorted by a hash of the text, every other one. */
export function devSplit(queries: LabelledQuery[]): { isDev: (i: number) => boolean } {
  const order = queries.map((q, i) => ({ h: fnv1a(`split:${q.query}`), i })).sort((a, b) => a.h - b.h || a.i - b.i);
  const dev = new Set(order.filter((_x, j) => j % 2 === 0).map((x) => x.i));
  return { isDev: (i) => dev.has(i) };
}
