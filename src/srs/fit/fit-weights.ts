// kb optimize: fitting FSRS's 21 weights to one person's history with fsrs-rs (through
// @open-spaced-repetition/binding), scored on a time-series split so the fitted weights
// are judged on reviews they were not fitted to: the items, in time order, are cut into
// SPLITS + 1 parts; for each k, weights fitted on parts 0..k-1 predict part k. The weights in
// use predict the same parts. Lower log loss is better; RMSE(bins) is reported with it
// (alone it can be gamed).
//
// Weights in use that an earlier kb optimize fitted have seen every review up to their fit:
// scored on those, they predicted "held-out" reviews they were fitted to, and won against any
// new fit (found as a user: fitted on 70% of a history, then refused a fit on all of it, 0.3766
// against 0.3800). So they are judged only on the reviews since: those are cut into SPLITS
// parts, each predicted by weights fitted on everything before it (the old fit's reviews
// included) and by the weights in use, both out of sample.
import { default_w } from 'ts-fsrs';
import type { TrainingItem } from './training-items.ts';
import { localDateLabel } from '../study-day.ts';

/** Long-term reviews (a review on a later day than the card's previous one) needed to fit. */
export const MIN_TRAINING_ITEMS = 64;
const SPLITS = 4;

export interface Scores {
  logLoss: number;
  rmseBins: number;
}

export interface FitOutcome {
  /** Training items (long-term reviews) the weights were fitted on. */
  items: number;
  weights: number[];
  fitted: Scores;
  previous: Scores;
  /**
   * fsrs-rs gave back FSRS's default weights untouched: it fits nothing from a history it
   * finds too small (found as a user: 128 reviews of 10 cards, "fitted" in 0.0 s, both score
   * rows the same), so nothing was fitted, whatever the scores say.
   */
  keptDefaults: boolean;
  /** Whether weights were fitted and predicted the held-out reviews better (lower log loss). */
  better: boolean;
  /** The training items the scores are over (those after `fittedAt` alone, when it was given). */
  scored: number;
}

export interface FitOptions {
  /**
   * When the weights in use were fitted (ms; kb.json's fsrsParameters.fittedAt): they are judged
   * only on the reviews since. Absent for FSRS's defaults, which were fitted to no one's reviews.
   */
  fittedAt?: number;
}

export class NotEnoughHistoryError extends Error {
  /** Training items (reviews on a later day than the card's previous one). */
  readonly have: number;
  /** Enough items, but none fsrs-rs can score: their cards have no earlier day's review to predict from. */
  readonly noneScorable: boolean;
  /** Of them, those since the weights in use were fitted (when they were: FitOptions.fittedAt), which alone can judge a new fit. */
  readonly sinceFit: number | undefined;

  constructor(have: number, noneScorable = false, sinceFit?: { at: number; items: number }) {
    super(
      sinceFit?.items === 0
        ? `no review since the weights in use were fitted (${fitDay(sinceFit.at)}) to judge a new fit against them (all ${have} of your reviews on a later day than their card's previous one were made before; to fit afresh to history imported since, take fsrsParameters out of kb.json)`
        : noneScorable && sinceFit
          ? `not enough review history since the weights in use were fitted (${fitDay(sinceFit.at)}) to judge a new fit yet (none of the ${sinceFit.items} reviews on a later day than their card's previous one can be scored: each needs its card reviewed on two earlier days)`
          : noneScorable
            ? `not enough review history to judge a fit yet (none of your ${have} reviews on a later day than their card's previous one can be scored: each needs its card reviewed on two earlier days)`
            : // One review is "1 review", not "1 reviews": a first kb optimize often has just that.
              `not enough review history to fit FSRS yet (${have} review${have === 1 ? '' : 's'} on a later day than their card's previous one; ${MIN_TRAINING_ITEMS} needed, ${MIN_TRAINING_ITEMS - have} more)`,
    );
    this.name = 'NotEnoughHistoryError';
    this.have = have;
    this.noneScorable = noneScorable;
    this.sinceFit = sinceFit?.items;
  }
}

/**
 * The day of a fit as kb optimize and kb stats name it: kb.json's fittedAt's date on the
 * learner's own calendar (its UTC date was a day off near midnight in a zone far from UTC).
 */
function fitDay(at: number): string {
  return localDateLabel(at);
}

/**
 * fsrs-rs refuses a part it keeps no item of (NotEnoughData): it scores a review only after
 * one on an earlier day, so a part of second reviews has nothing to score. Such a part is left
 * out, for both sets of weights alike; other errors are kb's to report.
 */
function unlessNotEnoughData<T>(run: () => T): T | null {
  try {
    return run();
  } catch (error) {
    if (String((error as Error)?.message ?? error).includes('NotEnoughData')) return null;
    throw error;
  }
}

/** `onProgress(done, total)` as the fits advance (one per part scored, then one on everything). */
export async function fitFsrs(
  items: readonly TrainingItem[],
  weightsInUse: readonly number[],
  onProgress: (done: number, total: number) => void = () => {},
  options: FitOptions = {},
): Promise<FitOutcome> {
  if (items.length < MIN_TRAINING_ITEMS) throw new NotEnoughHistoryError(items.length);
  // The scored items: after the first of SPLITS + 1 parts (fitted on, never scored), and after
  // every item the weights in use were fitted to. Items are in time order.
  const { fittedAt } = options;
  const seen = fittedAt === undefined ? 0 : items.filter((item) => item.at <= fittedAt).length;
  if (fittedAt !== undefined && seen === items.length) throw new NotEnoughHistoryError(items.length, false, { at: fittedAt, items: 0 });
  const first = Math.max(Math.round(items.length / (SPLITS + 1)), seen);
  const bounds = Array.from({ length: SPLITS + 1 }, (_, k) => first + Math.round((k * (items.length - first)) / SPLITS));
  const parts = bounds.slice(1).filter((end, k) => end > bounds[k]).length;

  const binding = await import('@open-spaced-repetition/binding');
  const toItems = (part: readonly TrainingItem[]) =>
    part.map((item) => new binding.FSRSBindingItem(item.reviews.map((review) => new binding.FSRSBindingReview(review.rating, review.deltaT))));
  const fits = parts + 1;
  let fitsDone = 0;
  const fit = (part: readonly TrainingItem[]) =>
    binding.computeParameters(toItems(part), {
      enableShortTerm: true,
      progress: (current, total) => {
        onProgress(fitsDone + (total > 0 ? current / total : 0), fits);
      },
    });

  const fitted = { logLoss: 0, rmseBins: 0, n: 0 };
  const previous = { logLoss: 0, rmseBins: 0, n: 0 };
  const inUse = new binding.FSRSBinding([...weightsInUse]);
  // At 0% now: fsrs-rs reports a fit's progress only as it ends, so the bar first showed at a
  // quarter, seconds in, and a fit of 8,000 reviews said nothing for its first 0.6 s.
  onProgress(0, fits);
  for (let k = 0; k < SPLITS; k++) {
    if (bounds[k + 1] === bounds[k]) continue;
    const test = toItems(items.slice(bounds[k], bounds[k + 1]));
    const weights = await fit(items.slice(0, bounds[k]));
    fitsDone++;
    const scored = unlessNotEnoughData(() => [new binding.FSRSBinding(weights).evaluate(test), inUse.evaluate(test)] as const);
    if (scored === null) continue;
    add(fitted, scored[0], test.length);
    add(previous, scored[1], test.length);
  }
  // No part could be scored (found as a user: 100 cards reviewed twice each crashed kb optimize).
  if (fitted.n === 0) throw new NotEnoughHistoryError(items.length, true, fittedAt === undefined ? undefined : { at: fittedAt, items: items.length - seen });
  const weights = await fit(items);
  onProgress(fits, fits);
  const scores = (sum: typeof fitted): Scores => ({ logLoss: sum.logLoss / sum.n, rmseBins: sum.rmseBins / sum.n });
  const outcome = { items: items.length, weights, fitted: scores(fitted), previous: scores(previous), keptDefaults: areDefaults(weights), scored: fitted.n };
  return { ...outcome, better: !outcome.keptDefaults && outcome.fitted.logLoss < outcome.previous.logLoss };
}

/** FSRS-6's default weights, as fsrs-rs holds them (32-bit floats, so within a rounding). */
function areDefaults(weights: readonly number[]): boolean {
  return weights.length === default_w.length && weights.every((weight, i) => Math.abs(weight - default_w[i]) <= 1e-5 * Math.max(1, Math.abs(default_w[i])));
}

function add(sum: { logLoss: number; rmseBins: number; n: number }, scores: Scores, weight: number): void {
  sum.logLoss += scores.logLoss * weight;
  sum.rmseBins += scores.rmseBins * weight;
  sum.n += weight;
}
