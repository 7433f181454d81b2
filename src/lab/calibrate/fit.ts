// Fits the sim's cost terms to measured step times and says how well they fit. Errors are
// relative (a 2 ms decode step and a 400 ms prefill step count alike), each kind of step weighs
// the same however many of it were measured, and so, within decode, does each range of batch
// size (the many small batches would otherwise set the cost per sequence, and big batches, which
// run a little cheaper per sequence, would be predicted 10-15% slow), and steps slowed by
// another process on a shared machine (far off the first fit) are set aside and counted.
import { COST_TERMS, type CostTerms, DECODE_SIZE_RANGES, decodeSizeLabel, percentile, predictStepMs, sizedSpreads, type SizedSpread, spreadQuantiles, stepGroup, type StepKind, type StepShape, stepKind } from '../../engine/index.ts';
import { nnls } from './nnls.ts';

export interface StepSample {
  shape: StepShape;
  ms: number;
}

export interface KindError {
  kind: StepKind;
  steps: number;
  /** Median and worst |predicted - measured| / measured, in %. */
  medianPct: number;
  worstPct: number;
}

/** Decode steps of one range of batch size: where a cost that is not linear in the batch shows. */
export interface SizeError {
  label: string;
  steps: number;
  /** Median of (predicted - measured) / measured, in %, with its sign: + predicted slow, - fast. */
  medianPct: number;
}

export interface Residual {
  kind: StepKind;
  tokens: number;
  measuredMs: number;
  predictedMs: number;
}

export interface CostFit {
  terms: CostTerms;
  /** 1 - SS_res / SS_tot over the kept steps, in ms. */
  r2: number;
  byKind: KindError[];
  decodeBySize: SizeError[];
  residuals: Residual[];
  /** Steps fitted, and steps set aside as disturbed. */
  kept: number;
  outliers: number;
  /**
   * Measured / predicted time of every measured step, the disturbed ones too, as quantiles 0%,
   * 1%, ..., 100%: the terms fit the median step, and the sim draws each step's ratio from this.
   */
  spread: number[];
  /** The same, by size of step (step-spread.ts): what the sim draws from. */
  spreadBySize: SizedSpread[];
}

/** A step whose time is this many times the first fit's median error off is taken as disturbed. */
const OUTLIER_FACTOR = 4;
const IRLS_ITERATIONS = 12;
/** The share of steps the fit aims to run faster than predicted. */
const QUANTILE = 0.5;

function median(values: readonly number[]): number {
  return values.length === 0 ? 0 : percentile(values, 50);
}

/**
 * Median regression on the relative error, by iteratively reweighted least squares. A step
 * slowed by another process pulls a mean far more than a median, and the median step is what
 * a run's p50 metrics see. (A lower quantile would follow the quiet machine instead; measured
 * here, lab runs under the neighbours' load sat near the median, not below it.)
 */
function solveTerms(samples: readonly StepSample[]): CostTerms {
  // Each kind weighs alike, and within a kind (decode) each range of batch size: a group's share
  // is split among its steps, a kind's among its groups.
  const groups = samples.map((s) => stepGroup(s.shape));
  const kinds = samples.map((s) => stepKind(s.shape));
  const counts = new Map<string, number>();
  for (const group of groups) counts.set(group, (counts.get(group) ?? 0) + 1);
  const groupsOfKind = new Map<StepKind, number>();
  for (const kind of new Map(groups.map((group, i) => [group, kinds[i]])).values()) groupsOfKind.set(kind, (groupsOfKind.get(kind) ?? 0) + 1);
  const features = samples.map((s) => COST_TERMS.map(({ feature }) => feature(s.shape)));
  // Relative error: divide by the measured time.
  const base = samples.map((s, i) => 1 / (s.ms * Math.sqrt(counts.get(groups[i])! * groupsOfKind.get(kinds[i])!)));
  let robust = samples.map(() => 1);
  let x: number[] = [];
  for (let iteration = 0; iteration < IRLS_ITERATIONS; iteration++) {
    const w = base.map((b, i) => b * Math.sqrt(robust[i]));
    x = nnls(
      features.map((row, i) => row.map((v) => v * w[i])),
      samples.map((s, i) => s.ms * w[i]),
    );
    robust = samples.map((s, i) => {
      const predicted = features[i].reduce((sum, v, c) => sum + v * x[c], 0);
      const r = (s.ms - predicted) / s.ms;
      return (r > 0 ? QUANTILE : 1 - QUANTILE) / Math.max(Math.abs(r), 0.005);
    });
  }
  return Object.fromEntries(COST_TERMS.map(({ term }, i) => [term, x[i]])) as unknown as CostTerms;
}

const relativeError = (terms: CostTerms, s: StepSample) => Math.abs(predictStepMs(terms, s.shape) - s.ms) / s.ms;

export function fitCostTerms(samples: readonly StepSample[]): CostFit {
  const usable = samples.filter((s) => s.ms > 0 && Number.isFinite(s.ms));
  if (usable.length < COST_TERMS.length) throw new Error(`too few measured steps to fit the cost model (${usable.length}; need at least ${COST_TERMS.length})`);
  const first = solveTerms(usable);
  const cutoff = Math.max(0.25, OUTLIER_FACTOR * median(usable.map((s) => relativeError(first, s))));
  const kept = usable.filter((s) => relativeError(first, s) <= cutoff);
  const terms = kept.length >= COST_TERMS.length ? solveTerms(kept) : first;
  const fitted = kept.length >= COST_TERMS.length ? kept : usable;

  const mean = fitted.reduce((sum, s) => sum + s.ms, 0) / fitted.length;
  let ssRes = 0;
  let ssTot = 0;
  for (const s of fitted) {
    ssRes += (predictStepMs(terms, s.shape) - s.ms) ** 2;
    ssTot += (s.ms - mean) ** 2;
  }
  const ratios = usable.flatMap((s) => {
    const fittedMs = predictStepMs(terms, s.shape);
    return fittedMs > 0 ? [{ fittedMs, ratio: s.ms / fittedMs }] : [];
  });
  const byKind: KindError[] = [];
  for (const kind of ['decode', 'prefill', 'mixed'] as const) {
    const errors = fitted.filter((s) => stepKind(s.shape) === kind).map((s) => relativeError(terms, s) * 100);
    if (errors.length > 0) byKind.push({ kind, steps: errors.length, medianPct: median(errors), worstPct: Math.max(...errors) });
  }
  const decodeBySize = DECODE_SIZE_RANGES.flatMap((range) => {
    const errors = fitted
      .filter((s) => stepKind(s.shape) === 'decode' && s.shape.tokens >= range[0] && s.shape.tokens <= range[1])
      .map((s) => ((predictStepMs(terms, s.shape) - s.ms) / s.ms) * 100);
    return errors.length > 0 ? [{ label: decodeSizeLabel(range), steps: errors.length, medianPct: median(errors) }] : [];
  });
  return {
    terms,
    r2: ssTot > 0 ? 1 - ssRes / ssTot : 1,
    byKind,
    decodeBySize,
    residuals: fitted.map((s) => ({ kind: stepKind(s.shape), tokens: s.shape.tokens, measuredMs: s.ms, predictedMs: predictStepMs(terms, s.shape) })),
    kept: fitted.length,
    outliers: usable.length - fitted.length,
    spread: spreadQuantiles(ratios.map((step) => step.ratio)),
    spreadBySize: sizedSpreads(ratios),
  };
}
