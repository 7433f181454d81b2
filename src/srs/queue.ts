// Today's queue, as Anki builds it: learning and relearning cards that are due now come
// first (their steps are minutes long, so they must not wait behind a pile of reviews),
// then reviews due today, then new cards. Limits are per review day: reviews and new cards
// already answered since the day started count against them. Pure: the store supplies the
// candidates and today's counts; this decides order and limits.
import { LEARNING, NEW, RELEARNING, REVIEW, type CardState } from '../model/fsrs-state.ts';

export interface QueueCard {
  id: string;
  state: CardState;
  /** Epoch ms. */
  due: number;
  /** Where a new card stands in today's new-card order (newCardOrder): new cards come in this order. */
  newOrder: number;
  suspended: boolean;
  /** Epoch ms until which the card is buried, or null. */
  buriedUntil: number | null;
}

export interface QueueLimits {
  newPerDay: number;
  reviewsPerDay: number;
  /** New cards first answered since the review day started. */
  newDoneToday: number;
  /** Review cards answered since the review day started. */
  reviewsDoneToday: number;
  /** At most this many cards in all (--limit), or null. */
  limit: number | null;
}

export interface DueQueue {
  /** Learning and relearning cards due now, earliest first. */
  learning: QueueCard[];
  /** Review cards due before the next day start, most overdue first. */
  review: QueueCard[];
  /** New cards within today's allowance, in the configured order (new-card-order.ts). */
  new: QueueCard[];
  /** Learning and relearning cards due later today: they join when their step ends. */
  later: QueueCard[];
}

function byDue(a: QueueCard, b: QueueCard): number {
  return a.due - b.due || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function byNewOrder(a: QueueCard, b: QueueCard): number {
  return a.newOrder - b.newOrder || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function isAvailable(card: QueueCard, now: number): boolean {
  return !card.suspended && !(card.buriedUntil !== null && card.buriedUntil > now);
}

/**
 * The queue at `now`; `dayEnd` is the next review-day start. Reviews and new cards are cut
 * to what is left of today's limits; learning cards are never cut by the daily limits
 * (a half-learned card left out would be forgotten), only by `limit`.
 */
export function buildQueue(cards: readonly QueueCard[], now: number, dayEnd: number, limits: QueueLimits): DueQueue {
  const learning: QueueCard[] = [];
  const later: QueueCard[] = [];
  const review: QueueCard[] = [];
  const fresh: QueueCard[] = [];
  for (const card of cards) {
    if (!isAvailable(card, now)) continue;
    if (card.state === LEARNING || card.state === RELEARNING) {
      if (card.due <= now) learning.push(card);
      else if (card.due < dayEnd) later.push(card);
    } else if (card.state === REVIEW) {
      if (card.due < dayEnd) review.push(card);
    } else if (card.state === NEW) {
      fresh.push(card);
    }
  }
  learning.sort(byDue);
  later.sort(byDue);
  review.sort(byDue);
  fresh.sort(byNewOrder);

  const sizes = queueSizes({ learning: learning.length, review: review.length, new: fresh.length, later: later.length }, limits);
  return {
    learning: learning.slice(0, sizes.learning),
    review: review.slice(0, sizes.review),
    new: fresh.slice(0, sizes.new),
    later: later.slice(0, sizes.later),
  };
}

export interface QueueSizes {
  learning: number;
  review: number;
  new: number;
  later: number;
}

/**
 * How many cards of each list today's queue keeps, given how many are eligible: reviews and
 * new cards cut to what is left of today's limits, then the first `limit` cards in queue
 * order (learning, review, new, then later). The one rule for the whole queue and for a
 * session that reads its lists a page at a time.
 */
export function queueSizes(eligible: QueueSizes, limits: QueueLimits): QueueSizes {
  const reviewsLeft = Math.max(0, limits.reviewsPerDay - limits.reviewsDoneToday);
  const newLeft = Math.max(0, limits.newPerDay - limits.newDoneToday);
  let left = limits.limit === null ? Number.POSITIVE_INFINITY : Math.max(0, limits.limit);
  const take = (count: number): number => {
    const kept = Math.min(count, left);
    left -= kept;
    return kept;
  };
  const learning = take(eligible.learning);
  const review = take(Math.min(eligible.review, reviewsLeft));
  const fresh = take(Math.min(eligible.new, newLeft));
  return { learning, review, new: fresh, later: take(eligible.later) };
}

/** The cards in the order a session shows them, learning due later today last. */
export function queueOrder(queue: DueQueue): QueueCard[] {
  return [...queue.learning, ...queue.review, ...queue.new, ...queue.later];
}
