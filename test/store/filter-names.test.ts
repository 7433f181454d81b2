// --tag and --deck are checked with one look-up (hasFilterName); the full list of names
// (filterNames) is read only to suggest the closest ones. Both must agree on what is known.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { filterNames, hasFilterName } from '../../src/store/filter-names.ts';

const name = fc.array(fc.constantFrom('a', 'b', '%', '_', '/', '模'), { minLength: 1, maxLength: 5 }).map((chars) => chars.join(''));

describe('hasFilterName', () => {
  it('knows exactly the names filterNames lists, parents included, for any names', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ deck: name, tags: fc.array(name, { maxLength: 3 }), orphan: fc.boolean() }), { maxLength: 6 }), name, (cards, probe) => {
        const db = openDatabase(':memory:');
        const insert = db.prepare(
          `INSERT INTO cards (id, kind, path, line, deck, tags, front, back, full, content_hash, file_size, file_mtime_ms, created_at, updated_at, orphan)
           VALUES (?, 'card', 'cards/x.md', ?, ?, ?, 'Q', 'A', 'Q A', 'h', 1, 1, 1, 1, ?)`,
        );
        cards.forEach((card, i) => insert.run(`c${i}`, i + 1, card.deck, JSON.stringify(card.tags), card.orphan ? 1 : 0));
        const names = filterNames(db);
        for (const known of [...names.tags, probe]) expect(hasFilterName(db, 'tag', known)).toBe(names.tags.includes(known));
        for (const known of [...names.decks, probe]) expect(hasFilterName(db, 'deck', known)).toBe(names.decks.includes(known));
        db.close();
      }),
      { numRuns: 200 },
    );
  });
});
