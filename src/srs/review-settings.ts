// The scheduling settings kb reads from a knowledge base's config file (src/kb/config.ts
// owns the file and its defaults). Declared here structurally so the scheduler and its
// tests depend only on the fields they use.
import { CLAMP_PARAMETERS, FSRS5_DEFAULT_DECAY, generatorParameters, W17_W18_Ceiling, type FSRSParameters, type StepUnit } from 'ts-fsrs';
import type { NewCardOrder } from './new-card-order.ts';
import type { LeechSettings } from './leech.ts';

/**
 * The longest answer time a rating records, as Anki's default "maximum answer seconds": a card
 * left on screen while its learner was away is not an hour of recall (the time feeds kb stats
 * and the revlog export the FSRS tools read).
 */
export const MAX_ANSWER_MS = 60_000;

/** The answer time a rating records: whole milliseconds, 0 to MAX_ANSWER_MS. */
export function recordedAnswerMs(ms: number): number {
  return Math.min(MAX_ANSWER_MS, Math.max(0, Math.round(Number.isFinite(ms) ? ms : 0)));
}

/** Leech settings are optional here: their defaults live in leech.ts. */
export interface ReviewSettings extends LeechSettings {
  /** Probability of recall FSRS aims for when it picks an interval (0.9 = 90%). */
  desiredRetention: number;
  /** Longest interval in days. */
  maximumInterval: number;
  /** Steps a new card goes through before it graduates, e.g. ['1m', '10m']. */
  learningSteps: readonly string[];
  /** Steps a forgotten review card goes through, e.g. ['10m']. */
  relearningSteps: readonly string[];
  newPerDay: number;
  reviewsPerDay: number;
  /** Local time a review day starts, 'HH:MM' (Anki: 04:00). */
  dayStartsAt: string;
  /** Spread intervals a little so cards learned together do not stay together. */
  fuzz: boolean;
  /** The order new cards come in (new-card-order.ts). */
  newCardOrder: NewCardOrder;
  /** Weights `kb optimize` fitted (kb.json fsrsParameters); absent: FSRS-6's defaults. */
  fsrsParameters?: { weights: readonly number[] };
}

/**
 * The range of each of FSRS-6's 21 weights, [low, high], as fsrs-rs keeps a fit in it (ts-fsrs's
 * table without short-term's floor on w19, which fsrs-rs may fit below). Outside it ts-fsrs
 * schedules with the weight clamped while fsrs-rs scores it as written. w17 and w18 are clamped
 * lower still with two relearning steps or more, by both alike.
 */
export const FSRS_WEIGHT_RANGES: ReadonlyArray<readonly [number, number]> = CLAMP_PARAMETERS(W17_W18_Ceiling, false).map(([low, high]) => [low, high] as const);

/**
 * Whether a weight is in its range, give or take a 32-bit float's rounding: fsrs-rs fits in
 * 32 bits, so a weight at a bound reads a hair past it (0.8 as 0.800000011920929).
 */
export function weightInRange(index: number, weight: number): boolean {
  const range = FSRS_WEIGHT_RANGES[index];
  if (!range) return false;
  const slack = (bound: number) => Math.abs(bound) * 1e-6;
  return weight >= range[0] - slack(range[0]) && weight <= range[1] + slack(range[1]);
}

/** The FSRS versions whose weights kb reads, by how many there are: FSRS-6's own, and the two before it. */
export const FSRS_VERSIONS = { 21: 'FSRS-6', 19: 'FSRS-5', 17: 'FSRS-4.5' } as const;
export type OlderFsrsVersion = 'FSRS-5' | 'FSRS-4.5';

/**
 * FSRS-4.5's 17 or FSRS-5's 19 weights (as older Anki versions and FSRS tools export them) as
 * the FSRS-6 weights that schedule the same, by ts-fsrs's migrateParameters: FSRS-5 gains w19 = 0
 * (no short-term exponent) and FSRS-5's fixed decay w20 = 0.5; FSRS-4.5's w4-w6 are rewritten
 * for FSRS-5's difficulty formula first. Done here rather than by ts-fsrs, which also clamps the
 * weights (kb refuses one out of range instead, naming it) and logs on the console (on stdout,
 * into --json). 21 weights are FSRS-6's own and come back as they are.
 */
export function migratedWeights(weights: readonly number[]): { weights: number[]; from: OlderFsrsVersion | null } {
  const w = [...weights];
  if (w.length === 19) return { weights: [...w, 0, FSRS5_DEFAULT_DECAY], from: 'FSRS-5' };
  if (w.length === 17) {
    const [w4, w5, w6] = [w[4], w[5], w[6]];
    w[4] = +(w5 * 2 + w4).toFixed(8);
    w[5] = +(Math.log(w5 * 3 + 1) / 3).toFixed(8);
    w[6] = +(w6 + 0.5).toFixed(8);
    return { weights: [...w, 0, 0, 0, FSRS5_DEFAULT_DECAY], from: 'FSRS-4.5' };
  }
  return { weights: w, from: null };
}

/** A step of the learning ladder as ts-fsrs writes it: a number and m, h or d (kb.json checks it with this too). */
export const LEARNING_STEP = /^\d+(\.\d+)?[mhd]$/;

function steps(name: string, values: readonly string[]): StepUnit[] {
  for (const value of values) {
    if (!LEARNING_STEP.test(value)) throw new Error(`${name}: "${value}" is not a step like 1m, 10m, 1h or 1d`);
  }
  return values as StepUnit[];
}

/** ts-fsrs parameters for these settings (FSRS-6 default weights). */
export function fsrsParameters(settings: ReviewSettings): FSRSParameters {
  return generatorParameters({
    request_retention: settings.desiredRetention,
    maximum_interval: settings.maximumInterval,
    enable_fuzz: settings.fuzz,
    enable_short_term: true,
    learning_steps: steps('learningSteps', settings.learningSteps),
    relearning_steps: steps('relearningSteps', settings.relearningSteps),
    ...(settings.fsrsParameters ? { w: [...settings.fsrsParameters.weights] } : {}),
  });
}
