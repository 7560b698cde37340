import { expect } from 'chai';
import fc from 'fast-check';
import { compileWat, generatedModule, WASM_SOURCES } from '../../../scripts/build-wasm.js';
import { VectorIndex } from '../../../src/search/vector-index.js';

/** Deterministic pseudo-random vectors: `clusters` centres, each point a centre plus noise. */
function vectors(count: number, dimensions: number, seed: number, clusters = 20): Float32Array[] {
  let x = seed >>> 0 || 1;
  const rand = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) / 2 ** 32) * 2 - 1;
  };
  const centres = Array.from({ length: clusters }, () => Float32Array.from({ length: dimensions }, rand));
  return Array.from({ length: count }, (_v, i) => {
    const c = centres[i % clusters]!;
    return Float32Array.from(c, (v) => v + 0.6 * rand());
  });
}

describe('VectorIndex', () => {
  /** Same ids in the same order, scores equal to single-precision rounding. */
  const expectSameHits = (a: { id: string; score: number }[], b: { id: string; score: number }[]) => {
    expect(a.map((h) => h.id)).to.deep.equal(b.map((h) => h.id));
    a.forEach((h, i) => expect(h.score).to.be.closeTo(b[i]!.score, 1e-5));
  };

  it('runs the WebAssembly SIMD kernel on Node 20', () => {
    expect(new VectorIndex(64).simd).to.equal(true);
    expect(new VectorIndex(64, 16, { simd: false }).simd).to.equal(false);
  });

  it('scans small vectors exactly', () => {
    const index = new VectorIndex(64, 16);
    const vs = vectors(2000, 64, 7);
    vs.forEach((v, i) => index.set(`d${i}`, v));
    for (const q of vectors(20, 64, 99)) expectSameHits(index.search(q, { limit: 10 }), index.searchExact(q, { limit: 10 }));
  });

  it('property: the SIMD kernel gives the scores of the plain loop, for any dimensions and allowed set', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 70 }),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.array(fc.integer({ min: 0, max: 119 }), { maxLength: 120 }),
        fc.integer({ min: 1, max: 40 }),
        (dims, count, seed, picked, limit) => {
          const simd = new VectorIndex(dims, 16, { sketchDimensions: 0 });
          const js = new VectorIndex(dims, 16, { sketchDimensions: 0, simd: false });
          const vs = vectors(count, dims, seed, 5);
          vs.forEach((v, i) => {
            simd.set(`d${i}`, v);
            js.set(`d${i}`, v);
          });
          const q = vectors(1, dims, seed ^ 0x5bd1e995, 1)[0]!;
          const allowed = new Set(picked.map((i) => `d${i}`));
          for (const options of [{ limit }, { limit, allowed }]) {
            const a = simd.search(q, options);
            const b = js.search(q, options);
            const exact = new Map(js.searchExact(q, { limit: count }).map((h) => [h.id, h.score]));
            expect(a.length).to.equal(b.length);
            // Every score is the exact one (to f32 rounding), and the order is by score.
            for (const h of a) expect(h.score).to.be.closeTo(exact.get(h.id)!, 1e-5);
            for (let i = 1; i < a.length; i++) expect(a[i]!.score).to.be.at.most(a[i - 1]!.score);
            // The same documents except where two scores are within rounding of each other.
            const cut = b.length ? b[b.length - 1]!.score : 0;
            for (const h of a) if (h.score > cut + 1e-5) expect(b.some((x) => x.id === h.id)).to.equal(true);
          }
        },
      ),
      { numRuns: 150, seed: 9 },
    );
  });

  it('keeps every vector when its memory grows, and reuses the slots of deleted documents', () => {
    const index = new VectorIndex(100, 16);
    const vs = vectors(700, 100, 17);
    vs.forEach((v, i) => index.set(`d${i}`, v));
    for (let i = 0; i < 700; i += 3) index.delete(`d${i}`);
    for (let i = 0; i < 700; i += 6) index.set(`d${i}`, vs[i]!);
    for (let i = 0; i < 700; i += 7) {
      const hit = index.search(vs[i]!, { limit: 1 })[0];
      if (i % 3 === 0 && i % 6 !== 0) expect(hit?.id).to.not.equal(`d${i}`);
      else {
        expect(hit?.id).to.equal(`d${i}`);
        expect(hit?.score).to.be.closeTo(1, 1e-5);
      }
    }
    expect(index.size).to.equal(700 - Math.ceil(700 / 3) + Math.ceil(700 / 6));
  });

  it('sees documents added or removed after an allowed set was first searched (the cached rows are refreshed)', () => {
    const index = new VectorIndex(32, 16);
    const vs = vectors(50, 32, 23);
    vs.slice(0, 40).forEach((v, i) => index.set(`d${i}`, v));
    const allowed = new Set(vs.map((_v, i) => `d${i}`));
    expect(index.search(vs[45]!, { limit: 50, allowed })).to.have.length(40);
    index.set('d45', vs[45]!);
    expect(index.search(vs[45]!, { limit: 1, allowed })[0]?.id).to.equal('d45');
    index.delete('d45');
    expect(index.search(vs[45]!, { limit: 50, allowed }).map((h) => h.id)).to.not.include('d45');
  });

  it('never returns a document removed from an allowed set that was searched before (same Set object)', () => {
    const index = new VectorIndex(32, 16);
    const vs = vectors(60, 32, 29);
    vs.forEach((v, i) => index.set(`d${i}`, v));
    const allowed = new Set(vs.map((_v, i) => `d${i}`));
    expect(index.search(vs[7]!, { limit: 1, allowed })[0]?.id).to.equal('d7');
    allowed.delete('d7');
    allowed.add('zzz'); // same size as before
    const hits = index.search(vs[7]!, { limit: 60, allowed });
    expect(hits.map((h) => h.id)).to.not.include('d7');
    expect(hits).to.have.length(59);
  });

  it('the committed wasm module is the compilation of dot.wat', async () => {
    for (const source of WASM_SOURCES) {
      const { readFile } = await import('node:fs/promises');
      const committed = await readFile(new URL(`../../../${source.out}`, import.meta.url), 'utf8');
      expect(committed).to.equal(generatedModule(source, await compileWat(source.wat)));
    }
  });

  it('two-pass search of large vectors finds nearly the exact top 10, with exact scores', function () {
    this.timeout(60000);
    const index = new VectorIndex(768, 16);
    const vs = vectors(3000, 768, 3);
    vs.forEach((v, i) => index.set(`d${i}`, v));
    let overlap = 0;
    // Queries near the data (a stored vector plus noise), as a real query is near some tools.
    const noise = vectors(30, 768, 11, 30);
    const queries = noise.map((n, i) => Float32Array.from(vs[i * 97]!, (v, j) => v + 0.5 * n[j]!));
    for (const q of queries) {
      const fast = index.search(q, { limit: 10 });
      const exact = index.searchExact(q, { limit: 10 });
      const exactScore = new Map(index.searchExact(q, { limit: 3000 }).map((h) => [h.id, h.score]));
      for (const h of fast) expect(h.score).to.be.closeTo(exactScore.get(h.id)!, 1e-5); // re-scored in full
      overlap += fast.filter((h) => exact.some((e) => e.id === h.id)).length;
    }
    expect(overlap / (queries.length * 10)).to.be.at.least(0.9);
  });

  it('two-pass search with sketches off is the exact search', () => {
    const index = new VectorIndex(768, 16, { sketchDimensions: 0 });
    vectors(1500, 768, 5).forEach((v, i) => index.set(`d${i}`, v));
    for (const q of vectors(5, 768, 13)) expectSameHits(index.search(q, { limit: 10 }), index.searchExact(q, { limit: 10 }));
  });

  it('property: two-pass search returns only allowed documents, and all of them when few', () => {
    const index = new VectorIndex(512, 16, { rerank: 8 });
    const vs = vectors(200, 512, 21);
    vs.forEach((v, i) => index.set(`d${i}`, v));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 199 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 30 }),
        (picked, limit) => {
          const allowed = new Set(picked.map((i) => `d${i}`));
          const hits = index.search(vs[limit]!, { limit, allowed });
          for (const h of hits) expect(allowed.has(h.id)).to.equal(true);
          expect(hits.length).to.equal(Math.min(limit, allowed.size));
        },
      ),
      { numRuns: 200, seed: 4 },
    );
  });
});
