import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QueueCard } from '../../src/srs/queue.ts';
import { ReviewSession } from '../../src/srs/session-queue.ts';
import { sessionQueue } from '../helpers/session-queue.ts';

const NOW = 10_000_000;
const DAY_END = NOW + 5_000_000;

function card(id: string, state: 0 | 1 | 2 | 3, due: number): QueueCard {
  return { id, state, due, newOrder: 0, suspended: false, buriedUntil: null };
}

describe('ReviewSession', () => {
  it('shows learning due now, reviews, new cards, then learning ahead, then waits for the rest', () => {
    const session = new ReviewSession(
      sessionQueue({ learning: [card('l', 1, NOW - 5)], review: [card('r', 2, NOW - 1000)], new: [card('n', 0, NOW)], later: [card('soon', 1, NOW + 60_000), card('late', 3, NOW + 3_600_000)] }),
      DAY_END,
    );
    const seen: string[] = [];
    for (;;) {
      const next = session.next(NOW);
      if (next.kind !== 'card') {
        expect(next).toEqual({ kind: 'wait', until: NOW + 3_600_000 - session.learnAheadMs });
        break;
      }
      seen.push(next.card.id);
      session.answered(next.card, 3, { state: 2, due: NOW + 86_400_000 * 3 });
    }
    expect(seen).toEqual(['l', 'r', 'n', 'soon']);
    expect(session.next(NOW + 3_600_000)).toMatchObject({ kind: 'card', card: { id: 'late' } });
  });

  it('brings an Again back when its step ends, and counts it as learning meanwhile', () => {
    const session = new ReviewSession(sessionQueue({ learning: [], review: [card('r', 2, NOW)], new: [card('n', 0, NOW)], later: [] }), DAY_END);
    session.answered(card('r', 2, NOW), 1, { state: 3, due: NOW + 600_000 });
    expect(session.counts()).toEqual({ new: 1, learning: 1, review: 0, done: 1 });
    expect(session.next(NOW)).toMatchObject({ card: { id: 'n' } });
    expect(session.next(NOW + 600_000)).toMatchObject({ card: { id: 'r', state: 3 } });
  });

  it('orders learning cards due at the same ms by id, as the store and so a fresh launch do', () => {
    const session = new ReviewSession(
      sessionQueue({ learning: [], review: [], new: [card('n2', 0, NOW), card('n1', 0, NOW)], later: [card('z', 1, NOW + 60_000), card('a', 1, NOW + 60_000)] }),
      DAY_END,
    );
    expect(session.lists().learning).toEqual(['a', 'z']);
    session.answered(card('n2', 0, NOW), 1, { state: 1, due: NOW + 120_000 });
    session.answered(card('n1', 0, NOW), 2, { state: 1, due: NOW + 120_000 });
    expect(session.lists().learning).toEqual(['a', 'z', 'n1', 'n2']);
  });

  it('undo shows the card again with its earlier state, and answer/undo pairs leave the counts as they were', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(1, 2, 3, 4) as fc.Arbitrary<1 | 2 | 3 | 4>, { maxLength: 10 }), (grades) => {
        const reviews = Array.from({ length: 5 }, (_, i) => card(`r${i}`, 2, NOW - i));
        const session = new ReviewSession(sessionQueue({ learning: [], review: reviews, new: [], later: [] }), DAY_END);
        for (const grade of grades) {
          const next = session.next(NOW);
          if (next.kind !== 'card') break;
          const before = session.counts();
          session.answered(next.card, grade, grade === 1 ? { state: 3, due: NOW + 600_000 } : { state: 2, due: NOW + 86_400_000 });
          session.restored(next.card, true);
          expect(session.counts()).toEqual(before);
          expect(session.next(NOW)).toEqual({ kind: 'card', card: next.card });
          session.answered(next.card, grade, { state: 2, due: DAY_END + 1 });
        }
      }),
    );
  });
});

describe('ReviewSession read a page at a time', () => {
  type Step = { kind: 'answer'; grade: 1 | 2 | 3 | 4; again: boolean } | { kind: 'remove' } | { kind: 'undo' };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('answer' as const), grade: fc.constantFrom(1, 2, 3, 4) as fc.Arbitrary<1 | 2 | 3 | 4>, again: fc.boolean() }),
    fc.constant({ kind: 'remove' as const }),
    fc.constant({ kind: 'undo' as const }),
  );

  it('shows the same cards in the same order, with the same counts, whatever the page size', () => {
    fc.assert(
      fc.property(fc.nat({ max: 12 }), fc.nat({ max: 12 }), fc.integer({ min: 1, max: 5 }), fc.array(step, { maxLength: 40 }), (reviews, fresh, pageSize, steps) => {
        const queue = () =>
          sessionQueue({
            learning: [card('l0', 1, NOW - 1)],
            review: Array.from({ length: reviews }, (_, i) => card(`r${i}`, 2, NOW - 100 + i)),
            new: Array.from({ length: fresh }, (_, i) => card(`n${i}`, 0, NOW)),
            later: [card('later', 3, NOW + 60_000)],
          });
        const whole = new ReviewSession(queue(), DAY_END);
        const paged = new ReviewSession(queue(), DAY_END, undefined, pageSize);
        let last: QueueCard | null = null;
        for (const action of steps) {
          const next = whole.next(NOW);
          expect(paged.next(NOW)).toEqual(next);
          expect(paged.counts()).toEqual(whole.counts());
          if (action.kind === 'undo') {
            if (last) for (const session of [whole, paged]) session.restored(last, false);
            continue;
          }
          if (next.kind !== 'card') break;
          last = next.card;
          for (const session of [whole, paged]) {
            if (action.kind === 'remove') session.removed(next.card.id);
            else session.answered(next.card, action.grade, action.again ? { state: 3, due: NOW + 30 * 60_000 } : { state: 2, due: DAY_END + 1 });
          }
        }
        expect(paged.next(NOW)).toEqual(whole.next(NOW));
        expect(paged.counts()).toEqual(whole.counts());
      }),
    );
  });

  it('reads no more of a list than the cards it has shown need', () => {
    let read = 0;
    const cards = Array.from({ length: 500 }, (_, i) => card(`r${i}`, 2, NOW - 1000 + i));
    const review = { total: cards.length, next: (count: number) => cards.slice(read, (read += count)) };
    const session = new ReviewSession({ learning: [], later: [], review, new: sessionQueue({ learning: [], review: [], new: [], later: [] }).new }, DAY_END, undefined, 50);
    expect(session.counts().review).toBe(500);
    expect(read).toBe(0);
    for (let i = 0; i < 51; i++) {
      const next = session.next(NOW);
      if (next.kind !== 'card') throw new Error('expected a card');
      session.answered(next.card, 3, { state: 2, due: DAY_END + 1 });
    }
    expect(read).toBe(100);
    expect(session.counts()).toMatchObject({ review: 449, done: 51 });
  });
});
