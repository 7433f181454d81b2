import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildQueue, isAvailable, queueOrder, type QueueCard, type QueueLimits } from '../../src/srs/queue.ts';

const NOW = 1_000_000;
const DAY_END = NOW + 50_000;

const cardArb = fc.record({
  id: fc.string({ minLength: 1, maxLength: 4 }),
  state: fc.constantFrom(0, 1, 2, 3) as fc.Arbitrary<0 | 1 | 2 | 3>,
  due: fc.integer({ min: NOW - 100_000, max: NOW + 100_000 }),
  newOrder: fc.integer({ min: 0, max: 50 }),
  suspended: fc.boolean(),
  buriedUntil: fc.option(fc.integer({ min: NOW - 10, max: NOW + 10 })),
});
const cardsArb = fc.uniqueArray(cardArb, { selector: (card) => card.id, maxLength: 60 });
const limitsArb = fc.record({
  newPerDay: fc.integer({ min: 0, max: 20 }),
  reviewsPerDay: fc.integer({ min: 0, max: 40 }),
  newDoneToday: fc.integer({ min: 0, max: 25 }),
  reviewsDoneToday: fc.integer({ min: 0, max: 45 }),
  limit: fc.option(fc.integer({ min: 0, max: 30 })),
});

const isLearning = (card: QueueCard) => card.state === 1 || card.state === 3;

function sortedBy<T>(list: readonly T[], key: (item: T) => number): boolean {
  return list.every((item, i) => i === 0 || key(list[i - 1]) <= key(item));
}

describe('buildQueue', () => {
  it('orders learning due now, then reviews due today, then new cards, each in its own order', () => {
    fc.assert(
      fc.property(cardsArb, limitsArb, (cards, limits: QueueLimits) => {
        const queue = buildQueue(cards, NOW, DAY_END, limits);
        expect(queue.learning.every((c) => isLearning(c) && c.due <= NOW)).toBe(true);
        expect(queue.review.every((c) => c.state === 2 && c.due < DAY_END)).toBe(true);
        expect(queue.new.every((c) => c.state === 0)).toBe(true);
        expect(queue.later.every((c) => isLearning(c) && c.due > NOW && c.due < DAY_END)).toBe(true);
        expect(sortedBy(queue.learning, (c) => c.due)).toBe(true);
        expect(sortedBy(queue.review, (c) => c.due)).toBe(true);
        expect(sortedBy(queue.new, (c) => c.newOrder)).toBe(true);
      }),
    );
  });

  it('keeps suspended and buried cards out', () => {
    fc.assert(
      fc.property(cardsArb, limitsArb, (cards, limits) => {
        for (const card of queueOrder(buildQueue(cards, NOW, DAY_END, limits))) {
          expect(card.suspended).toBe(false);
          expect(card.buriedUntil === null || card.buriedUntil <= NOW).toBe(true);
        }
      }),
    );
  });

  it("respects what is left of today's limits, and cuts learning only by --limit", () => {
    fc.assert(
      fc.property(cardsArb, limitsArb, (cards, limits) => {
        const queue = buildQueue(cards, NOW, DAY_END, limits);
        const available = cards.filter((c) => isAvailable(c, NOW));
        const dueReviews = available.filter((c) => c.state === 2 && c.due < DAY_END).length;
        const fresh = available.filter((c) => c.state === 0).length;
        const learningNow = available.filter((c) => isLearning(c) && c.due <= NOW).length;
        const reviewCap = Math.max(0, limits.reviewsPerDay - limits.reviewsDoneToday);
        const newCap = Math.max(0, limits.newPerDay - limits.newDoneToday);
        if (limits.limit === null) {
          expect(queue.review.length).toBe(Math.min(dueReviews, reviewCap));
          expect(queue.new.length).toBe(Math.min(fresh, newCap));
          expect(queue.learning.length).toBe(learningNow);
        } else {
          expect(queueOrder(queue).length).toBeLessThanOrEqual(limits.limit);
          const unlimited = queueOrder(buildQueue(cards, NOW, DAY_END, { ...limits, limit: null }));
          expect(queueOrder(queue)).toEqual(unlimited.slice(0, queueOrder(queue).length));
        }
      }),
    );
  });
});
