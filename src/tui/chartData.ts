// Shaping per-interval counts to a chart's width: adjacent intervals are
// summed, so totals survive the squeeze (a burst of 404s is never averaged away).
import type { Series } from './view-model.js';

export function isEmptySeries(series: Series): boolean {
  return series.labels.length === 0;
}

/** Sum adjacent intervals so that at most `points` remain; the bucket size is the same for every array. */
export function bucketSize(length: number, points: number): number {
  return points <= 0 ? length : Math.max(1, Math.ceil(length / points));
}

export function sumBuckets(values: readonly number[], size: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i += size) {
    let sum = 0;
    for (let j = i; j < Math.min(values.length, i + size); j++) {
      const v = values[j] as number;
      sum += Number.isFinite(v) ? v : 0;
    }
    out.push(sum);
  }
  return out;
}

export function total(values: readonly number[]): number {
  return values.reduce((s, v) => s + (Number.isFinite(v) ? v : 0), 0);
}

/** Largest finite value, 0 for none (no spread: series can be long). */
export function maxOf(values: readonly number[]): number {
  return values.reduce((m, v) => (Number.isFinite(v) && v > m ? v : m), 0);
}
