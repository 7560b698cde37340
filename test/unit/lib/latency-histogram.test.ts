import { expect } from 'chai';
import {
  addHistogram,
  histogramPercentile,
  LATENCY_BUCKET_MAX,
  LATENCY_BUCKET_MIN_MS,
  LATENCY_BUCKET_RATIO,
  latencyBucket,
  latencyBucketValue,
  percentileRank,
  type Percent,
} from '../../../src/lib/latency-histogram.js';

/** The exact nearest-rank percentile of raw values (the brute force every figure is checked against). */
function exactPercentile(values: number[], percent: Percent): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[percentileRank(percent, sorted.length) - 1]!;
}

function histogramOf(values: number[]): number[] {
  const counts: number[] = [];
  for (const v of values) {
    const b = latencyBucket(v);
    while (counts.length <= b) counts.push(0);
    counts[b]! += 1;
  }
  return counts;
}

/** A deterministic pseudo-random source (the same figures on every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('latency histogram', () => {
  it('puts 0 (and anything under 1 µs) in bucket 0, reported as 0', () => {
    expect(latencyBucket(0)).to.equal(0);
    expect(latencyBucket(0.0009)).to.equal(0);
    expect(latencyBucket(-1)).to.equal(0);
    expect(latencyBucket(Number.NaN)).to.equal(0);
    expect(latencyBucketValue(0)).to.equal(0);
    expect(latencyBucket(LATENCY_BUCKET_MIN_MS)).to.equal(1);
  });

  it('is monotonic and within 1 % of every value from 1 µs, at and beside every bucket edge', () => {
    let previous = 0;
    for (let b = 1; b < LATENCY_BUCKET_MAX; b++) {
      const edge = LATENCY_BUCKET_MIN_MS * Math.pow(LATENCY_BUCKET_RATIO, b - 1);
      for (const v of [edge * (1 - 1e-12), edge, edge * (1 + 1e-12), edge * 1.01].filter((x) => x >= LATENCY_BUCKET_MIN_MS)) {
        const bucket = latencyBucket(v);
        expect(bucket, `bucket of ${v}`).to.be.at.least(previous);
        previous = bucket;
        const reported = latencyBucketValue(bucket);
        expect(Math.abs(reported - v) / v, `error at ${v} ms (bucket ${bucket})`).to.be.at.most(0.01);
      }
    }
  });

  it('clamps latencies beyond the last bucket into it', () => {
    expect(latencyBucket(1e12)).to.equal(LATENCY_BUCKET_MAX);
    expect(latencyBucket(Number.POSITIVE_INFINITY)).to.equal(LATENCY_BUCKET_MAX);
  });

  it('uses the nearest-rank rule with exact integer arithmetic', () => {
    expect(percentileRank(95, 20)).to.equal(19); // 0.95 * 20 is 19.000000000000004 in floating point
    expect(percentileRank(50, 1)).to.equal(1);
    expect(percentileRank(99, 100)).to.equal(99);
    expect(percentileRank(99, 101)).to.equal(100);
    expect(percentileRank(50, 0)).to.equal(1);
  });

  it('reads percentiles in the bucket of the exact value, within 1 %, for varied distributions', () => {
    const random = rng(42);
    const distributions: [string, () => number][] = [
      ['log-uniform 0.01 ms .. 30 s', () => 0.01 * Math.exp(random() * Math.log(3e6))],
      ['narrow around 5 ms', () => 5 + random()],
      ['micro-second resolution', () => Math.round(random() * 2000) / 1000],
      ['bimodal', () => (random() < 0.9 ? 2 + random() : 800 + 400 * random())],
    ];
    for (const [name, draw] of distributions) {
      for (const n of [1, 2, 19, 20, 100, 1001, 5000]) {
        const values = Array.from({ length: n }, draw);
        const counts = histogramOf(values);
        for (const p of [50, 95, 99] as const) {
          const exact = exactPercentile(values, p);
          const reported = histogramPercentile(counts, p)!;
          expect(reported, `${name}, n=${n}, p${p}`).to.equal(latencyBucketValue(latencyBucket(exact)));
          if (exact === 0) expect(reported).to.equal(0);
          else expect(Math.abs(reported - exact) / exact, `${name}, n=${n}, p${p}`).to.be.at.most(0.01);
        }
      }
    }
  });

  it('merges histograms element-wise and answers null when empty', () => {
    expect(histogramPercentile([], 50)).to.equal(null);
    expect(histogramPercentile([0, 0, 0], 99)).to.equal(null);
    expect(addHistogram([1, 2], [0, 1, 5])).to.deep.equal([1, 3, 5]);
    expect(addHistogram([1, 2, 3], [1])).to.deep.equal([2, 2, 3]);
  });
});
