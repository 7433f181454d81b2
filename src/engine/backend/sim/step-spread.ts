// The spread of step times around the fitted cost. A fitted profile predicts the median step
// (fit.ts fits a median): on a real machine steps scatter around it, skewed slow (a garbage
// collection, a neighbour's burst, the OS). A request's TPOT and a run's throughput add up
// many steps, so they follow the mean step, not the median; ITL p99 and TTFT p99 follow the
// slow tail. A calibrated profile keeps the measured ratios (step time / fitted time) as a
// quantile table, and the sim draws each step's ratio from it: seeded, so a run is repeatable.
import { hash2 } from '../../sampling-rng.ts';

/** Quantiles the table holds: 0%, 1%, ..., 100% of the measured ratios. */
export const SPREAD_POINTS = 101;

/** The ratio at quantile `u` (0..1) of a table of equally spaced quantiles, linear in between. */
export function spreadAt(quantiles: readonly number[], u: number): number {
  const at = Math.min(Math.max(u, 0), 1) * (quantiles.length - 1);
  const low = Math.floor(at);
  if (low >= quantiles.length - 1) return quantiles[quantiles.length - 1];
  return quantiles[low] + (quantiles[low + 1] - quantiles[low]) * (at - low);
}

/** The quantile table of `ratios` (unsorted), rounded to 4 digits: what a profile stores. No ratios: no spread (all 1). */
export function spreadQuantiles(ratios: readonly number[]): number[] {
  const sorted = [...ratios].sort((a, b) => a - b);
  if (sorted.length === 0) return new Array<number>(SPREAD_POINTS).fill(1);
  return Array.from({ length: SPREAD_POINTS }, (_, i) => {
    const at = (i / (SPREAD_POINTS - 1)) * (sorted.length - 1);
    const low = Math.floor(at);
    const value = low >= sorted.length - 1 ? sorted[sorted.length - 1] : sorted[low] + (sorted[low + 1] - sorted[low]) * (at - low);
    return Math.round(value * 1e4) / 1e4;
  });
}

/** Step n's ratio for an engine seeded `seed`: the same run draws the same ratios. */
export function stepRatio(quantiles: readonly number[], seed: number, step: number): number {
  return spreadAt(quantiles, hash2(seed ^ 0x57e9, step) / 4294967296);
}
