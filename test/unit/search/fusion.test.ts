import { expect } from 'chai';
import { fuse, RRF_60 } from '../../../src/search/fusion.js';

const list = (...ids: string[]) => ids.map((id, i) => ({ id, score: 10 - i }));

describe('rank fusion', () => {
  it('RRF k=60: sums 1/(k+rank) over both lists', () => {
    const fused = fuse(list('a', 'b', 'c'), list('c', 'a', 'd'), RRF_60, 10);
    const byId = Object.fromEntries(fused.map((h) => [h.id, h]));
    expect(byId.a!.score).to.be.closeTo(1 / 61 + 1 / 62, 1e-12);
    expect(byId.c!.score).to.be.closeTo(1 / 63 + 1 / 61, 1e-12);
    expect(byId.b!.score).to.be.closeTo(1 / 62, 1e-12);
    expect(byId.d!.score).to.be.closeTo(1 / 63, 1e-12);
    expect(fused.map((h) => h.id)).to.deep.equal(['a', 'c', 'b', 'd']);
    expect(byId.a).to.include({ keywordRank: 1, semanticRank: 2 });
    expect(byId.d).to.not.have.property('keywordRank');
  });

  it('weighted RRF favours the heavier list', () => {
    const kw = list('k1', 'k2');
    const sem = list('s1', 's2');
    expect(fuse(kw, sem, { kind: 'rrf', k: 60, keywordWeight: 2 }, 1)[0]!.id).to.equal('k1');
    expect(fuse(kw, sem, { kind: 'rrf', k: 60, semanticWeight: 2 }, 1)[0]!.id).to.equal('s1');
  });

  it('a document found by both lists beats one found by either alone', () => {
    const fused = fuse(list('x', 'both'), list('y', 'both'), RRF_60, 3);
    expect(fused[0]!.id).to.equal('both');
  });

  it('convex combination over min-max scores: alpha 1 is the keyword order, alpha 0 the semantic order', () => {
    const kw = [
      { id: 'a', score: 9 },
      { id: 'b', score: 5 },
      { id: 'c', score: 1 },
    ];
    const sem = [
      { id: 'c', score: 0.9 },
      { id: 'b', score: 0.8 },
      { id: 'a', score: 0.1 },
    ];
    expect(fuse(kw, sem, { kind: 'convex', alpha: 1, normalization: 'minmax' }, 3).map((h) => h.id)).to.deep.equal(['a', 'b', 'c']);
    expect(fuse(kw, sem, { kind: 'convex', alpha: 0, normalization: 'minmax' }, 3).map((h) => h.id)).to.deep.equal(['c', 'b', 'a']);
    const mid = fuse(kw, sem, { kind: 'convex', alpha: 0.5, normalization: 'minmax' }, 3);
    expect(mid[0]!.id).to.equal('b'); // 0.5·0.5 + 0.5·0.875 beats a (0.5) and c (0.5)
  });

  it('convex combination over z-scores gives absent documents the list minimum', () => {
    const fused = fuse(list('a', 'b'), list('c'), { kind: 'convex', alpha: 0.5, normalization: 'zscore' }, 3);
    expect(fused.map((h) => h.id)).to.have.members(['a', 'b', 'c']);
    for (const h of fused) expect(Number.isFinite(h.score)).to.equal(true);
  });

  it('handles empty lists, limits and ties deterministically', () => {
    expect(fuse([], [], RRF_60, 5)).to.deep.equal([]);
    expect(fuse(list('a', 'b', 'c'), [], RRF_60, 2).map((h) => h.id)).to.deep.equal(['a', 'b']);
    expect(fuse([], list('a', 'b'), RRF_60, 0)).to.deep.equal([]);
    // Same fused score: the better keyword rank wins, then the better semantic rank.
    expect(fuse(list('k'), list('s'), RRF_60, 2).map((h) => h.id)).to.deep.equal(['k', 's']);
  });
});
