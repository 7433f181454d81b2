// FSRS over ts-fsrs 5: previews the four answers for a card and applies one.
// kb's own clock rules live here: the local day start (see clock.ts) and fuzz seeded by
// the card id and its review count, so a preview shown in the morning and the rating
// made in the evening give the same interval.
//
// A rating (rate) takes ts-fsrs's formulas (next_state, next_interval with its fuzz, the
// learning steps) but not its scheduler object: `FSRS.next` builds one per call, copies the
// card five times, fills a Map and review logs, and for a card in review computes all four
// answers. A clone's first open replays every rating of every log through it (100,000 took
// ~0.6 s, a quarter of the open). `rate` walks the same steps as ts-fsrs's BasicScheduler for
// the one answer, in the same order, on epoch milliseconds, and draws the fuzz once per rating
// (ts-fsrs seeds a new generator for each of the three intervals it fuzzes, from one seed): the
// result is the same to the bit (test/srs/fsrs-rate.test.ts checks it against `FSRS.next` on
// random cards, histories and settings). One rule differs from ts-fsrs, on both paths: a review
// card's Hard, Good and Easy stay within maximumInterval, as in Anki (withinMaximum).
import { BasicLearningStepsStrategy, fsrs, GenSeedStrategyWithCardId, get_fuzz_range, StrategyMode, type Card, type FSRS, type FSRSParameters } from 'ts-fsrs';
import { columnsFromState, stateFromColumns } from '../model/fsrs-state.ts';
import { fromSchedulingClock, shiftMs, toSchedulingClock } from './study-day.ts';
import { fsrsParameters, type ReviewSettings } from './review-settings.ts';
import { GRADES, LEARNING, NEW, RELEARNING, REVIEW, type CardState, type FsrsState, type Grade } from '../model/fsrs-state.ts';

/** The ts-fsrs card, carrying the id the seed strategy reads. */
type SeededCard = Card & { card_id: string };

export interface Preview {
  grade: Grade;
  after: FsrsState;
  /** Milliseconds from now until the card would be due again. */
  intervalMs: number;
}

const DAY_MS = 24 * 60 * 60 * 1e3;

/** ECMAScript's TimeClip, which `new Date(t)` applies: whole milliseconds, NaN out of range. */
function timeClip(t: number): number {
  return Math.abs(t) <= 8.64e15 ? Math.trunc(t) + 0 : NaN;
}

/** The UTC day of a time value, as ts-fsrs's dateDiffInDays counts it (Date.UTC of its UTC date, in days). */
function utcDay(t: number): number {
  const rest = t % DAY_MS;
  return (t - rest) / DAY_MS - (rest < 0 ? 1 : 0);
}

/**
 * The first number of ts-fsrs's seeded generator (Alea, its `alea(seed)()`), which its
 * apply_fuzz draws: the same arithmetic, for the one draw.
 */
export function aleaFirst(seed: string): number {
  // Mash's state `n` runs on through its calls: s0, s1 and s2 of ' ', then s0 less the seed's.
  // The first draw reads s0 alone.
  let n = 4022871197;
  let s0 = 0;
  for (let call = 0; call < 4; call++) {
    const data = call < 3 ? ' ' : seed;
    for (let i = 0; i < data.length; i++) {
      n += data.charCodeAt(i);
      let h = 0.02519603282416938 * n;
      n = h >>> 0;
      h -= n;
      h *= n;
      n = h >>> 0;
      h -= n;
      n += h * 4294967296;
    }
    const mashed = (n >>> 0) * 23283064365386963e-26;
    if (call === 0) s0 = mashed;
    else if (call === 3) s0 -= mashed;
  }
  if (s0 < 0) s0 += 1;
  const t = 2091639 * s0 + 1 * 23283064365386963e-26;
  return t - (t | 0);
}

/** A card's memory state and schedule after one answer, on the scheduling clock (ts-fsrs's card fields). */
interface Outcome {
  difficulty: number;
  stability: number;
  state: CardState;
  learningSteps: number;
  scheduledDays: number;
  due: number;
  lapses: number;
}

export class FsrsScheduler {
  readonly settings: ReviewSettings;
  readonly fsrs: FSRS;
  private readonly parameters: FSRSParameters;
  /** The running rating's fuzz seed, and its draw once made. */
  private seed = '';
  private fuzz: number | null = null;

  constructor(settings: ReviewSettings) {
    this.settings = settings;
    this.fsrs = fsrs(fsrsParameters(settings)).useStrategy(StrategyMode.SEED, GenSeedStrategyWithCardId('card_id'));
    this.parameters = this.fsrs.parameters;
  }

  /** The four possible outcomes, Again to Easy, for the interval labels. */
  preview(cardId: string, before: FsrsState, now: number): Preview[] {
    const record = this.fsrs.repeat(this.toCard(cardId, before), toSchedulingClock(now, this.settings.dayStartsAt));
    return GRADES.map((grade) => {
      const after = this.fromCard(this.withinMaximum(record[grade].card, before, grade), now);
      return { grade, after, intervalMs: after.due - now };
    });
  }

  /** The state after answering `grade` at `now`: what `FSRS.next` gives (see the top of this file). */
  rate(cardId: string, before: FsrsState, grade: Grade, now: number): FsrsState {
    const { state } = before;
    // kb schedules with short-term steps (ts-fsrs's BasicScheduler); anything else goes through ts-fsrs itself, errors included.
    if (!this.parameters.enable_short_term || !(grade === 1 || grade === 2 || grade === 3 || grade === 4) || !(state === NEW || state === LEARNING || state === RELEARNING || state === REVIEW)) {
      return this.rateThroughTsFsrs(cardId, before, grade, now);
    }
    const dayStartsAt = this.settings.dayStartsAt;
    const shift = shiftMs(now, dayStartsAt);
    const reviewTime = timeClip(now + shift);
    // AbstractScheduler.init: the days elapsed (UTC dates of the scheduling clock), one more rep, the fuzz's seed.
    const elapsed = state !== NEW && before.lastReview !== null ? utcDay(reviewTime) - utcDay(timeClip(before.lastReview + shiftMs(before.lastReview, dayStartsAt))) : 0;
    const reps = before.reps + 1;
    // GenSeedStrategyWithCardId's seed: the card id and the new count of reviews.
    this.seed = String(cardId + reps);
    this.fuzz = null;
    const outcome = state === REVIEW ? this.reviewOutcome(before, grade, elapsed, reviewTime) : this.learningOutcome(before, grade, elapsed, reviewTime, state === NEW ? LEARNING : state);
    return {
      due: outcome.due - shift,
      stability: outcome.stability,
      difficulty: outcome.difficulty,
      elapsedDays: elapsed,
      scheduledDays: outcome.scheduledDays,
      learningSteps: outcome.learningSteps,
      reps,
      lapses: outcome.lapses,
      state: outcome.state,
      lastReview: now,
    };
  }

  /** `rate` through ts-fsrs's own scheduler (`FSRS.next`). */
  rateThroughTsFsrs(cardId: string, before: FsrsState, grade: Grade, now: number): FsrsState {
    const item = this.fsrs.next(this.toCard(cardId, before), toSchedulingClock(now, this.settings.dayStartsAt), grade);
    return this.fromCard(this.withinMaximum(item.card, before, grade), now);
  }

  /**
   * A review card's Hard, Good or Easy as ts-fsrs gives it, brought back to maximumInterval
   * where ts-fsrs's "a day past the answer below" took it beyond (reviewOutcome does the same).
   */
  private withinMaximum(card: Card, before: FsrsState, grade: Grade): Card {
    const maximum = this.parameters.maximum_interval;
    if (before.state !== REVIEW || grade === 1 || card.scheduled_days <= maximum) return card;
    return { ...card, scheduled_days: maximum, due: new Date(card.due.getTime() - (card.scheduled_days - maximum) * DAY_MS) };
  }

  /** BasicScheduler.newState and learningState: a new, learning or relearning card answered. */
  private learningOutcome(before: FsrsState, grade: Grade, elapsed: number, reviewTime: number, toState: CardState): Outcome {
    const next = this.fsrs.next_state({ difficulty: before.difficulty, stability: before.stability }, elapsed, grade);
    return this.learningSteps(before, grade, next.difficulty, next.stability, elapsed, reviewTime, toState, before.lapses);
  }

  /** BasicScheduler.reviewState for one answer: Hard's, Good's and Easy's intervals bound one another; Again's stands alone. */
  private reviewOutcome(before: FsrsState, grade: Grade, elapsed: number, reviewTime: number): Outcome {
    const algorithm = this.fsrs;
    const memory = { difficulty: before.difficulty, stability: before.stability };
    const r = algorithm.forgetting_curve(elapsed, before.stability);
    if (grade === 1) {
      const again = algorithm.next_state(memory, elapsed, 1, r);
      return this.learningSteps(before, 1, again.difficulty, again.stability, elapsed, reviewTime, RELEARNING, before.lapses + 1);
    }
    const next = algorithm.next_state(memory, elapsed, grade, r);
    const hard = grade === 2 ? next : algorithm.next_state(memory, elapsed, 2, r);
    const good = grade === 3 ? next : algorithm.next_state(memory, elapsed, 3, r);
    let hardInterval = this.nextInterval(hard.stability, elapsed);
    let goodInterval = this.nextInterval(good.stability, elapsed);
    hardInterval = Math.min(hardInterval, goodInterval);
    // Good a day past Hard and Easy a day past Good, as ts-fsrs and Anki order them, but never
    // past maximumInterval, as Anki keeps it (ts-fsrs's bumps took a mature card to 31 and 32
    // days under a maximum of 30): withinMaximum does the same to ts-fsrs's own outcomes.
    const maximum = this.parameters.maximum_interval;
    goodInterval = Math.min(Math.max(goodInterval, hardInterval + 1), maximum);
    const interval = grade === 2 ? hardInterval : grade === 3 ? goodInterval : Math.min(Math.max(this.nextInterval(next.stability, elapsed), goodInterval + 1), maximum);
    return {
      difficulty: next.difficulty,
      stability: next.stability,
      state: REVIEW,
      learningSteps: 0,
      scheduledDays: interval,
      due: timeClip(reviewTime + interval * DAY_MS),
      lapses: before.lapses,
    };
  }

  /** BasicScheduler.applyLearningSteps: the next step of the learning (or relearning) ladder, or the card graduates. */
  private learningSteps(before: FsrsState, grade: Grade, difficulty: number, stability: number, elapsed: number, reviewTime: number, toState: CardState, lapses: number): Outcome {
    const steps = BasicLearningStepsStrategy(this.parameters, before.state, before.learningSteps || 0)[grade];
    const minutes = Math.max(0, steps?.scheduled_minutes ?? 0);
    const nextStep = Math.max(0, steps?.next_step ?? 0);
    if (minutes > 0 && minutes < 1440) {
      return { difficulty, stability, state: toState, learningSteps: nextStep, scheduledDays: 0, due: timeClip(reviewTime + Math.round(minutes) * 60 * 1e3), lapses };
    }
    if (minutes >= 1440) {
      return { difficulty, stability, state: REVIEW, learningSteps: nextStep, scheduledDays: Math.floor(minutes / 1440), due: timeClip(reviewTime + Math.round(minutes) * 60 * 1e3), lapses };
    }
    const interval = this.nextInterval(stability, elapsed);
    return { difficulty, stability, state: REVIEW, learningSteps: 0, scheduledDays: interval, due: timeClip(reviewTime + interval * DAY_MS), lapses };
  }

  /** FSRSAlgorithm.next_interval and its apply_fuzz, the fuzz drawn once for the rating. */
  private nextInterval(stability: number, elapsed: number): number {
    const { maximum_interval: maximum, enable_fuzz: fuzz } = this.parameters;
    const interval = Math.min(Math.max(1, Math.round(stability * this.fsrs.interval_modifier)), maximum);
    if (!fuzz || interval < 2.5) return Math.round(interval);
    this.fuzz ??= aleaFirst(this.seed);
    const { min_ivl: min, max_ivl: max } = get_fuzz_range(interval, elapsed, maximum);
    return Math.floor(this.fuzz * (max - min + 1) + min);
  }

  /** The weights in use (for retrievability and mastery). */
  get weights(): readonly number[] {
    return this.fsrs.parameters.w;
  }

  private toCard(cardId: string, state: FsrsState): SeededCard {
    const dayStartsAt = this.settings.dayStartsAt;
    return {
      ...columnsFromState(state, { suspended: false, buriedUntil: null }),
      card_id: cardId,
      due: toSchedulingClock(state.due, dayStartsAt),
      last_review: state.lastReview === null ? undefined : toSchedulingClock(state.lastReview, dayStartsAt),
    };
  }

  private fromCard(card: Card, now: number): FsrsState {
    // ts-fsrs spells the fields as the store's columns do; only the clock and the types differ.
    return stateFromColumns({
      ...card,
      due: fromSchedulingClock(card.due, now, this.settings.dayStartsAt),
      state: card.state as number as CardState,
      // ts-fsrs stamps the review with the shifted time it was given: that is `now`.
      last_review: card.last_review ? now : null,
    });
  }
}
