// Percentiles as numpy computes them by default ("linear"): the rank p/100 * (n - 1) falls
// between two sorted values, and the result is interpolated between them.
import { type SortedValues, sortValues } from './sorted-values.ts';

export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  return percentileOf(sortValues(values), p);
}

function percentileOf(sorted: SortedValues, p: number): number {
  if (sorted.count === 0) return Number.NaN;
  const rank = (Math.min(Math.max(p, 0), 100) / 100) * (sorted.count - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const low = sorted.at(lo);
  return low + (sorted.at(hi) - low) * (rank - lo);
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  count: number;
}

export function percentiles(values: ArrayLike<number>): Percentiles {
  const sorted = sortValues(values);
  return {
    p50: percentileOf(sorted, 50),
    p95: percentileOf(sorted, 95),
    p99: percentileOf(sorted, 99),
    mean: sorted.count > 0 ? sorted.sum() / sorted.count : Number.NaN,
    count: sorted.count,
  };
}
