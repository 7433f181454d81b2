// A card's events sorted in memory (a clone's first open keeps what it read) come in the
// order the database reads them back: SQLite compares text as UTF-8 bytes, JavaScript as
// UTF-16 units, and the two differ past the Basic Multilingual Plane.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { compareEventRows, reviewEventQueries, type EventRow } from '../../src/store/review-events.ts';

describe('review event order', () => {
  it('sorting rows in memory gives the order the database reads a card in', () => {
    const texts = fc.constantFrom('a', 'b', 'ab', 'B', 'é', '\uE000', '\uFFFD', '😀', 'a😀', 'a\uFFFF', '');
    const event = fc.record({ at: fc.integer({ min: 0, max: 3 }), device: texts, n: fc.integer({ min: 0, max: 3 }), id: texts });
    fc.assert(
      fc.property(fc.uniqueArray(event, { selector: (e) => e.id, maxLength: 12 }), (events) => {
        const db = openDatabase(':memory:');
        try {
          const queries = reviewEventQueries(db);
          const rows: EventRow[] = events.map((e) => ({
            id: `${e.id}#`,
            device: `${e.device}.`,
            n: e.n,
            card_id: 'card',
            at: e.at,
            kind: 'rate',
            rating: 3,
            duration_ms: 0,
            target: null,
            reset_counts: 0,
            seed: null,
            day: '2026-01-05',
            source_state: null,
          }));
          for (const row of rows) queries.insert(row);
          expect([...rows].sort(compareEventRows).map((row) => row.id)).toEqual(queries.forCard('card').map((row) => row.id));
        } finally {
          db.close();
        }
      }),
      { numRuns: 300 },
    );
  });
});
