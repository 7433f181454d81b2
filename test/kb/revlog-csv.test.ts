// The revlog CSV and its card numbers: kb ids survive the trip through integers, and the
// file kb writes is one the FSRS binding reads.
import { convertCsvToFsrsItems } from '@open-spaced-repetition/binding';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newCardId } from '../../src/kb/card-identity.ts';
import { cardNumbers, FIRST_FOREIGN_NUMBER, kbIdOfNumber, numberOfKbId } from '../../src/kb/revlog/card-number.ts';
import { formatRevlog, parseRevlog, type RevlogRow } from '../../src/kb/revlog/revlog-csv.ts';

describe('card numbers', () => {
  it('a kb id is its own number and back', () => {
    fc.assert(
      fc.property(fc.integer(), () => {
        const id = newCardId();
        const number = numberOfKbId(id);
        expect(number).not.toBeNull();
        expect(number! < FIRST_FOREIGN_NUMBER).toBe(true);
        expect(kbIdOfNumber(number!)).toBe(id);
      }),
      { numRuns: 200 },
    );
  });

  it('other ids are numbered from 2^60, past every kb id', () => {
    const numbers = cardNumbers(['my-note', 'abcdefghijkl', 'Another_1']);
    expect(numbers.get('abcdefghijkl')).toBe(numberOfKbId('abcdefghijkl'));
    expect(numbers.get('Another_1')).toBe(FIRST_FOREIGN_NUMBER);
    expect(numbers.get('my-note')).toBe(FIRST_FOREIGN_NUMBER + 1n);
    expect(kbIdOfNumber(FIRST_FOREIGN_NUMBER)).toBeNull();
  });
});

describe('revlog CSV', () => {
  const day = 86_400_000;
  const start = Date.UTC(2026, 0, 5, 12);
  const rows: RevlogRow[] = [
    { cardNumber: numberOfKbId('abcdefghijkl')!, at: start, rating: 3, state: 0, durationMs: 5000 },
    { cardNumber: numberOfKbId('abcdefghijkl')!, at: start + 3 * day, rating: 3, state: 2, durationMs: 4000 },
    { cardNumber: numberOfKbId('abcdefghijkl')!, at: start + 10 * day, rating: 1, state: 2, durationMs: 9000 },
  ];

  it('round-trips, and fsrs-rs reads what kb writes', () => {
    const text = formatRevlog(rows);
    expect(parseRevlog(text).rows.map(({ line: _line, cardId: _id, ...row }) => row)).toEqual(rows);
    const items = convertCsvToFsrsItems(new TextEncoder().encode(text), 4, 'UTC', () => 0);
    expect(items.length).toBeGreaterThan(0);
    expect(items.at(-1)?.reviews.map((review) => review.rating)).toEqual([3, 3, 1]);
  });

  it('reads columns by the header and refuses rows that are not reviews', () => {
    const read = parseRevlog('\uFEFFreview_rating,card_id,review_time,extra\n3,42,1767614400000,x\n0,42,1767614400001,x\n');
    expect(read.rows).toEqual([{ line: 2, cardId: '42', cardNumber: 42n, at: 1767614400000, rating: 3, state: null, durationMs: 0 }]);
    expect(read.refused).toEqual([{ line: 3, reason: 'review_rating 0 is not 1-4' }]);
  });

  it('reads a kb id written as it is as that id\'s number; keeps any other text as written, for the import to look up', () => {
    // Which card a text names only the knowledge base knows: a card's id may be of any shape
    // (found by a probe: the bundled cmkzgimfo90n, which kb cards lists, was refused here as
    // "neither a whole number nor a kb id"). An empty card_id names none.
    const read = parseRevlog('card_id,review_time,review_rating\ny674hnzxy7c3,1767614400000,3\ncmkzgimfo90n,1767614400000,3\n,1767614400000,3\n');
    expect(read.rows.map((row) => [row.cardId, row.cardNumber])).toEqual([
      ['y674hnzxy7c3', numberOfKbId('y674hnzxy7c3')],
      ['cmkzgimfo90n', null],
    ]);
    expect(read.refused).toEqual([{ line: 4, reason: 'card_id is empty' }]);
  });
});
