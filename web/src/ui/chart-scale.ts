/**
 * The parts of a time chart's layout that are plain arithmetic, kept apart from uPlot so they can
 * be tested without a browser.
 */

/**
 * The x range of a chart of hourly (or other) buckets: half a bucket of room on both sides, so the
 * first and the current bucket's bars are drawn whole instead of cut in half at the plot's edges.
 */
export function bucketRange(min: number | null, max: number | null, bucketSeconds: number): [number, number] {
  const lo = min ?? 0;
  const hi = max ?? lo;
  return [lo - bucketSeconds / 2, hi + bucketSeconds / 2];
}

/**
 * Whether a line series needs its points drawn: when a value has no neighbour to join (the first
 * hour of data, or hours between empty ones), a line alone would draw nothing and the chart would
 * look empty while the tiles show figures.
 */
export function hasIsolatedValues(values: readonly (number | null)[]): boolean {
  return values.some((v, i) => v !== null && (values[i - 1] ?? null) === null && (values[i + 1] ?? null) === null);
}
