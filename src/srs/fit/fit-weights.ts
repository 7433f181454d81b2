// kb optimize: fitting FSRS's 21 weights to one person's history with fsrs-rs (through
// @open-spaced-repetition/binding), scored on a time-series split so the fitted weights
// are judged on reviews they were not fitted to: the items, in time order, are cut into
// SPLITS + 1 parts; for each k, weights fitted on parts 0..k-1 predict part k. The weights in
// use (FSRS-6's defaults, or an earlier fit) predict the same parts. Lower log loss is
// better; RMSE(bins) is reported with it (alone it can be gamed).
import { default_w } from 'ts-fsrs';
import type { TrainingItem } from './training-items.ts';

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
}

export class NotEnoughHistoryError extends Error {
  /** Training items (reviews on a later day than the card's previous one). */
  readonly have: number;
  /** Enough items, but none fsrs-rs can score: their cards have no earlier day's review to predict from. */
  readonly noneScorable: boolean;

  constructor(have: number, noneScorable = false) {
    super(
      noneScorable
        ? `not enough review history to judge a fit yet (none of your ${have} reviews on a later day than their card's previous one can be scored: each needs its card reviewed on two earlier days)`
        : // One review is "1 review", not "1 reviews": a first kb optimize often has just that.
          `not enough review history to fit FSRS yet (${have} review${have === 1 ? '' : 's'} on a later day than their card's previous one; ${MIN_TRAINING_ITEMS} needed, ${MIN_TRAINING_ITEMS - have} more)`,
    );
    this.name = 'NotEnoughHistoryError';
    this.have = have;
    this.noneScorable = noneScorable;
  }
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

/** `onProgress(done, total)` as the fits advance (SPLITS fits to score, then one on everything). */
export async function fitFsrs(items: readonly TrainingItem[], weightsInUse: readonly number[], onProgress: (done: number, total: number) => void = () => {}): Promise<FitOutcome> {
  if (items.length < MIN_TRAINING_ITEMS) throw new NotEnoughHistoryError(items.length);
  const binding = await import('@open-spaced-repetition/binding');
  const toItems = (part: readonly TrainingItem[]) =>
    part.map((item) => new binding.FSRSBindingItem(item.reviews.map((review) => new binding.FSRSBindingReview(review.rating, review.deltaT))));
  const fits = SPLITS + 1;
  let fitsDone = 0;
  const fit = (part: readonly TrainingItem[]) =>
    binding.computeParameters(toItems(part), {
      enableShortTerm: true,
      progress: (current, total) => {
        onProgress(fitsDone + (total > 0 ? current / total : 0), fits);
      },
    });

  const bounds = Array.from({ length: SPLITS + 2 }, (_, k) => Math.round((k * items.length) / (SPLITS + 1)));
  const fitted = { logLoss: 0, rmseBins: 0, n: 0 };
  const previous = { logLoss: 0, rmseBins: 0, n: 0 };
  const inUse = new binding.FSRSBinding([...weightsInUse]);
  for (let k = 1; k <= SPLITS; k++) {
    const test = toItems(items.slice(bounds[k], bounds[k + 1]));
    const weights = await fit(items.slice(0, bounds[k]));
    fitsDone++;
    if (test.length === 0) continue;
    const scored = unlessNotEnoughData(() => [new binding.FSRSBinding(weights).evaluate(test), inUse.evaluate(test)] as const);
    if (scored === null) continue;
    add(fitted, scored[0], test.length);
    add(previous, scored[1], test.length);
  }
  // No part could be scored (found as a user: 100 cards reviewed twice each crashed kb optimize).
  if (fitted.n === 0) throw new NotEnoughHistoryError(items.length, true);
  const weights = await fit(items);
  onProgress(fits, fits);
  const scores = (sum: typeof fitted): Scores => ({ logLoss: sum.logLoss / sum.n, rmseBins: sum.rmseBins / sum.n });
  const outcome = { items: items.length, weights, fitted: scores(fitted), previous: scores(previous), keptDefaults: areDefaults(weights) };
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
