import { expect } from 'chai';
import fc from 'fast-check';
import { VectorIndex } from '../../src/search/vector-index.js';

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
  it('scans small vectors exactly', () => {
    const index = new VectorIndex(64, 16);
    const vs = vectors(2000, 64, 7);
    vs.forEach((v, i) => index.set(`d${i}`, v));
    for (const q of vectors(20, 64, 99)) expect(index.search(q, { limit: 10 })).to.deep.equal(index.searchExact(q, { limit: 10 }));
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
      for (const h of fast) expect(h.score).to.be.closeTo(exactScore.get(h.id)!, 1e-6); // re-scored in full
      overlap += fast.filter((h) => exact.some((e) => e.id === h.id)).length;
    }
    expect(overlap / (queries.length * 10)).to.be.at.least(0.9);
  });

  it('two-pass search with sketches off is the exact search', () => {
    const index = new VectorIndex(768, 16, { sketchDimensions: 0 });
    vectors(1500, 768, 5).forEach((v, i) => index.set(`d${i}`, v));
    for (const q of vectors(5, 768, 13)) expect(index.search(q, { limit: 10 })).to.deep.equal(index.searchExact(q, { limit: 10 }));
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
