/**
 * Log-spaced latency buckets: the shape of the hourly latency histograms the dashboard reads.
 *
 * Bucket 0 holds latencies under 1 µs (the recording resolution; in practice exactly 0). Bucket
 * `b ≥ 1` holds `[MIN_MS · R^(b-1), MIN_MS · R^b)` with `R = 1.02`, and is reported as its geometric
 * middle `MIN_MS · R^(b-0.5)`: any latency in the bucket is within `√R − 1 ≈ 0.995 %` of that
 * value, so a percentile read from the histogram is within 1 % of the exact one (same rank rule).
 * Latencies beyond the last bucket (about 5.8 hours) land in it.
 */
export const LATENCY_BUCKET_RATIO = 1.02;
/** Lower edge of bucket 1, in milliseconds (1 µs). */
export const LATENCY_BUCKET_MIN_MS = 0.001;
/** Index of the last bucket (≈ 2.1 · 10^7 ms). */
export const LATENCY_BUCKET_MAX = 1200;

const LOG_RATIO = Math.log(LATENCY_BUCKET_RATIO);

/** The bucket of a latency in milliseconds (negative and non-finite values count as 0). */
export function latencyBucket(ms: number): number {
  if (!(ms >= LATENCY_BUCKET_MIN_MS)) return 0;
  const b = 1 + Math.floor(Math.log(ms / LATENCY_BUCKET_MIN_MS) / LOG_RATIO);
  return Math.min(b, LATENCY_BUCKET_MAX);
}

/** The value a bucket stands for: 0 for bucket 0, else its geometric middle (6 significant digits). */
export function latencyBucketValue(bucket: number): number {
  if (bucket <= 0) return 0;
  return Number((LATENCY_BUCKET_MIN_MS * Math.pow(LATENCY_BUCKET_RATIO, bucket - 0.5)).toPrecision(6));
}

/** Percentiles the dashboard reports, as whole percents (exact rank arithmetic, no float error). */
export type Percent = 50 | 95 | 99;

/**
 * The nearest-rank position of a percentile among `n` sorted values: the smallest rank `k`
 * (1-based) with `k ≥ p·n/100`. Both the histogram read and the exact brute force use this rule.
 */
export function percentileRank(percent: Percent, n: number): number {
  return Math.max(1, Math.ceil((percent * n) / 100));
}

/** Adds histogram `b` (counts per bucket, index = bucket) into `a`, growing it as needed. */
export function addHistogram(a: number[], b: readonly number[]): number[] {
  for (let i = 0; i < b.length; i++) a[i] = (a[i] ?? 0) + (b[i] ?? 0);
  return a;
}

/** A percentile of a histogram (counts per bucket, index = bucket); null when it holds no calls. */
export function histogramPercentile(counts: readonly number[], percent: Percent): number | null {
  let total = 0;
  for (const c of counts) total += c;
  if (total === 0) return null;
  const rank = percentileRank(percent, total);
  let seen = 0;
  for (let bucket = 0; bucket < counts.length; bucket++) {
    seen += counts[bucket]!;
    if (seen >= rank) return latencyBucketValue(bucket);
  }
  return null;
}
