// A whole queue (as kb due lists it) as a review session's queue, its lists read from memory.
import type { DueQueue, QueueCard } from '../../src/srs/queue.ts';
import type { CardCursor, SessionQueue } from '../../src/srs/session-queue.ts';

/** A cursor over cards already in memory. */
export function arrayCursor(cards: readonly QueueCard[]): CardCursor {
  let at = 0;
  return {
    total: cards.length,
    next(count) {
      const page = cards.slice(at, at + count);
      at += page.length;
      return page;
    },
  };
}

/** A whole queue (as kb due lists it) as a session's queue. */
export function sessionQueue(queue: DueQueue): SessionQueue {
  return { learning: queue.learning, later: queue.later, review: arrayCursor(queue.review), new: arrayCursor(queue.new) };
}
