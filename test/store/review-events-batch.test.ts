// Reading a log stores its events many to a statement (insertAll); one at a time (insert) is
// the rule it must keep: an id already stored, or met earlier in the same read, is skipped and
// the first of two rows with one id is the one kept, whichever batch each falls in.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { reviewEventQueries, type EventRow } from '../../src/store/review-events.ts';

function row(id: string, card: string, at: number, n: number): EventRow {
  return { id, device: 'd', n, card_id: card, at, kind: 'rate', rating: 1 + (n % 4), duration_ms: n, target: null, reset_counts: 0, seed: null, day: '2026-01-05', source_state: null };
}

const everything = 'SELECT * FROM review_events ORDER BY card_id, at, device, n, id';

describe('review events stored in batches', () => {
  it('stores and reports what inserting one at a time would', () => {
    // Few ids, so that repeats are common; up to 200 rows, so that a read spans several batches.
    const event = fc.record({ id: fc.integer({ min: 0, max: 150 }), card: fc.constantFrom('a', 'b', 'c'), at: fc.integer({ min: 0, max: 5 }) });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), fc.array(event, { maxLength: 200 }), (before, read) => {
        const rows = (events: typeof read, from: number) => events.map((e, i) => row(`e${e.id}`, e.card, e.at, from + i));
        const one = openDatabase(':memory:');
        const many = openDatabase(':memory:');
        try {
          const single = reviewEventQueries(one);
          const batched = reviewEventQueries(many);
          for (const r of rows(before, 0)) {
            single.insert(r);
            batched.insert(r);
          }
          const expected = rows(read, 1000).filter((r) => single.insert(r));
          expect(batched.insertAll(rows(read, 1000))).toEqual(expected);
          expect(many.prepare(everything).all()).toEqual(one.prepare(everything).all());
        } finally {
          one.close();
          many.close();
        }
      }),
      { numRuns: 200 },
    );
  });
});
