// FSRS over ts-fsrs 5: previews the four answers for a card and applies one.
// kb's own clock rules live here: the local day start (see clock.ts) and fuzz seeded by
// the card id and its review count, so a preview shown in the morning and the rating
// made in the evening give the same interval.
import { fsrs, GenSeedStrategyWithCardId, StrategyMode, type Card, type FSRS } from 'ts-fsrs';
import { columnsFromState, stateFromColumns } from '../model/fsrs-state.ts';
import { fromSchedulingClock, toSchedulingClock } from './study-day.ts';
import { fsrsParameters, type ReviewSettings } from './review-settings.ts';
import { GRADES, type CardState, type FsrsState, type Grade } from '../model/fsrs-state.ts';

/** The ts-fsrs card, carrying the id the seed strategy reads. */
type SeededCard = Card & { card_id: string };

export interface Preview {
  grade: Grade;
  after: FsrsState;
  /** Milliseconds from now until the card would be due again. */
  intervalMs: number;
}

export class FsrsScheduler {
  readonly settings: ReviewSettings;
  readonly fsrs: FSRS;

  constructor(settings: ReviewSettings) {
    this.settings = settings;
    this.fsrs = fsrs(fsrsParameters(settings)).useStrategy(StrategyMode.SEED, GenSeedStrategyWithCardId('card_id'));
  }

  /** The four possible outcomes, Again to Easy, for the interval labels. */
  preview(cardId: string, before: FsrsState, now: number): Preview[] {
    const record = this.fsrs.repeat(this.toCard(cardId, before), toSchedulingClock(now, this.settings.dayStartsAt));
    return GRADES.map((grade) => {
      const after = this.fromCard(record[grade].card, now);
      return { grade, after, intervalMs: after.due - now };
    });
  }

  /** The state after answering `grade` at `now`. */
  rate(cardId: string, before: FsrsState, grade: Grade, now: number): FsrsState {
    const item = this.fsrs.next(this.toCard(cardId, before), toSchedulingClock(now, this.settings.dayStartsAt), grade);
    return this.fromCard(item.card, now);
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
