// The spread of step times around the fitted cost. A fitted profile predicts the median step
// (fit.ts fits a median): on a real machine steps scatter around it, skewed slow (a garbage
// collection, a neighbour's burst, the OS). A request's TPOT and a run's throughput add up
// many steps, so they follow the mean step, not the median; ITL p99 and TTFT p99 follow the
// slow tail. A calibrated profile keeps the measured ratios (step time / fitted time) as a
// quantile table, and the sim draws each step's ratio from it: seeded, so a run is repeatable.
// The tables are kept per size of step: a disturbance of a few ms doubles a 3 ms step and
// hardly moves a 40 ms one (gpt2-tiny here: p99 1.65x for steps under 3 ms, 1.22x over 10 ms),
// so one table drawn for every step made long steps' tails several times too heavy.
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

/** The spread of steps whose fitted time is at least `fromMs` (up to the next table's). */
export interface SizedSpread {
  fromMs: number;
  quantiles: number[];
}

/** The table for a step of fitted time `ms`: the last whose fromMs it reaches (the first for shorter steps). */
export function spreadFor(spreads: readonly SizedSpread[], ms: number): readonly number[] {
  let chosen = spreads[0];
  for (const spread of spreads) if (ms >= spread.fromMs) chosen = spread;
  return chosen.quantiles;
}

/** Steps a table needs at least: fewer, and its tail is a handful of steps. */
const MIN_STEPS_PER_SPREAD = 100;

/**
 * Tables of ratios by size of step: the steps sorted by fitted time and cut into up to `parts`
 * groups of equal count, each group at least MIN_STEPS_PER_SPREAD steps.
 */
export function sizedSpreads(steps: ReadonlyArray<{ fittedMs: number; ratio: number }>, parts = 4): SizedSpread[] {
  const sorted = [...steps].sort((a, b) => a.fittedMs - b.fittedMs);
  const count = Math.max(1, Math.min(parts, Math.floor(sorted.length / MIN_STEPS_PER_SPREAD)));
  return Array.from({ length: count }, (_, k) => {
    const group = sorted.slice(Math.floor((k * sorted.length) / count), Math.floor(((k + 1) * sorted.length) / count));
    return { fromMs: k === 0 ? 0 : Math.round(group[0].fittedMs * 1e3) / 1e3, quantiles: spreadQuantiles(group.map((step) => step.ratio)) };
  });
}
