// The new-card readers over an in-memory store: any sequence of page sizes hands out one
// fixed order, and interleaving reads a deck only when its turn comes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newCardReader, type NewCardSource } from '../../src/srs/new-card-order.ts';
import type { NewCandidateRow } from '../../src/store/review-queries.ts';

function row(deck: string, line: number): NewCandidateRow & { deck: string } {
  return { id: `${deck}-${line}`, state: 0, due: 0, suspended: 0, buried_until: null, path: `cards/${deck}.md`, line, deck };
}

/** Decks of the given sizes, read as the store would (keyset pages in file order), counting the reads. */
function memorySource(sizes: number[]) {
  const decks = sizes.map((_, i) => `d${String(i).padStart(2, '0')}`);
  const rows = decks.flatMap((deck, i) => Array.from({ length: sizes[i] }, (_, line) => row(deck, line + 1)));
  const reads: string[] = [];
  const after = (last: NewCandidateRow | null) => (r: NewCandidateRow) => last === null || r.path > last.path || (r.path === last.path && r.line > last.line);
  const source: NewCardSource = {
    decks: () => decks,
    filePage: (last, count, deck) => {
      reads.push(deck ?? '*');
      return rows.filter((r) => (deck === undefined || r.deck === deck) && after(last)(r)).slice(0, count);
    },
    shuffledPage: () => [],
  };
  return { decks, rows, reads, source };
}

function readAll(read: (count: number) => Array<{ id: string }>, pageSizes: number[]): string[] {
  const ids: string[] = [];
  for (let i = 0; ; i++) {
    const page = read(pageSizes[i % pageSizes.length]);
    if (page.length === 0) return ids;
    ids.push(...page.map((r) => r.id));
  }
}

describe('new card readers', () => {
  it('interleave: round r gives the r-th card of every deck that has one, whatever the page sizes', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 6 }), fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }), (sizes, pageSizes) => {
        const { decks, rows, source } = memorySource(sizes);
        const rounds = Array.from({ length: Math.max(...sizes) }, (_, r) => decks.flatMap((deck) => rows.filter((x) => x.deck === deck).slice(r, r + 1)));
        expect(readAll(newCardReader('interleave', source), pageSizes)).toEqual(rounds.flat().map((r) => r.id));
        expect(readAll(newCardReader('file', memorySource(sizes).source), pageSizes)).toEqual(rows.map((r) => r.id));
      }),
    );
  });

  it('reads only the decks a page reaches: a day of 3 new cards out of 40 decks reads 3 decks', () => {
    const { reads, source } = memorySource(Array.from({ length: 40 }, () => 50));
    expect(newCardReader('interleave', source)(3).map((r) => r.id)).toEqual(['d00-1', 'd01-1', 'd02-1']);
    expect(reads).toEqual(['d00', 'd01', 'd02']);
  });
});
