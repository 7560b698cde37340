import { expect } from 'chai';
import { firstPrincipalComponent, removeComponent, SifVectors } from '../../../bench/search/sif-vectors.js';
import { WordVectors } from '../../../src/search/word-vectors.js';

/** A table of unit-ish integer vectors in GloVe frequency order (id 0 = most frequent). */
function tiny(entries: [string, number[]][]): WordVectors {
  const dims = entries[0]![1].length;
  const norms = Float32Array.from(entries.map(([, v]) => 1 / Math.sqrt(v.reduce((s, x) => s + x * x, 0))));
  return new WordVectors(
    entries.map(([w]) => w),
    Int8Array.from(entries.flatMap(([, v]) => v)),
    norms,
    dims,
  );
}

const TABLE = tiny([
  ['get', [100, 0, 0]],
  ['list', [90, 10, 0]],
  ['address', [0, 100, 0]],
  ['geocode', [0, 20, 100]],
  ['coordinates', [0, 30, 95]],
]);

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('bench SIF word-vector sentence vectors (issue 33 experiment)', () => {
  it('weighs a frequent word less than a rare one', () => {
    const sif = new SifVectors(TABLE, { a: 1e-3 });
    expect(sif.weight(0)).to.be.lessThan(sif.weight(4));
    expect(sif.weight(4)).to.be.lessThan(1);
  });

  it('returns a unit vector dominated by the rarer word, and null without known words', () => {
    const sif = new SifVectors(TABLE, { a: 1e-3 });
    const v = sif.embed('get geocode')!;
    expect(Math.sqrt(dot(v, v))).to.be.closeTo(1, 1e-5);
    // The rare word (geocode, rank 3) outweighs the frequent one (get, rank 0).
    expect(v[2]!).to.be.greaterThan(v[0]!);
    expect(sif.embed('zzz qqq')).to.equal(null);
    const coords = sif.embed('coordinates')!;
    const geocode = sif.embed('getGeocode')!;
    expect(dot(coords, geocode)).to.be.greaterThan(dot(coords, sif.embed('list')!));
  });

  it('finds the shared direction and removes it', () => {
    const rows = [Float32Array.from([1, 0.1, 0]), Float32Array.from([1, -0.1, 0]), Float32Array.from([0.9, 0, 0.1])].map((v) => {
      const n = Math.sqrt(dot(v, v));
      return v.map((x) => x / n);
    });
    const pc = firstPrincipalComponent(rows, 3);
    expect(Math.abs(pc[0]!)).to.be.greaterThan(0.95);
    const stripped = removeComponent(rows[0]!, pc);
    expect(dot(stripped, pc)).to.be.closeTo(0, 1e-5);
    expect(Math.sqrt(dot(stripped, stripped))).to.be.closeTo(1, 1e-5);
  });
});
