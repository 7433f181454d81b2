import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QueueCard } from '../../src/srs/queue.ts';
import { ReviewSession } from '../../src/srs/session.ts';

const NOW = 10_000_000;
const DAY_END = NOW + 5_000_000;

function card(id: string, state: 0 | 1 | 2 | 3, due: number): QueueCard {
  return { id, state, due, newOrder: 0, suspended: false, buriedUntil: null };
}

describe('ReviewSession', () => {
  it('shows learning due now, reviews, new cards, then learning ahead, then waits for the rest', () => {
    const session = new ReviewSession(
      { learning: [card('l', 1, NOW - 5)], review: [card('r', 2, NOW - 1000)], new: [card('n', 0, NOW)], later: [card('soon', 1, NOW + 60_000), card('late', 3, NOW + 3_600_000)] },
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
    const session = new ReviewSession({ learning: [], review: [card('r', 2, NOW)], new: [card('n', 0, NOW)], later: [] }, DAY_END);
    session.answered(card('r', 2, NOW), 1, { state: 3, due: NOW + 600_000 });
    expect(session.counts()).toEqual({ new: 1, learning: 1, review: 0, done: 1 });
    expect(session.next(NOW)).toMatchObject({ card: { id: 'n' } });
    expect(session.next(NOW + 600_000)).toMatchObject({ card: { id: 'r', state: 3 } });
  });

  it('undo shows the card again with its earlier state, and answer/undo pairs leave the counts as they were', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(1, 2, 3, 4) as fc.Arbitrary<1 | 2 | 3 | 4>, { maxLength: 10 }), (grades) => {
        const reviews = Array.from({ length: 5 }, (_, i) => card(`r${i}`, 2, NOW - i));
        const session = new ReviewSession({ learning: [], review: reviews, new: [], later: [] }, DAY_END);
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
