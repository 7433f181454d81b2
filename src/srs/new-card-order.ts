// The order new cards come in (kb.json newCardOrder), read a page at a time:
//   interleave  one card of each deck or note folder in turn (the decks with the fewest cards
//               introduced so far first, then by name), each deck in file order, so a first
//               day is not twenty cards of one deck and no deck waits for good (the default);
//   file        knowledge-base order: by path, then line;
//   random      a permutation of the new cards seeded by the study day: the same all day
//               (kb due and kb review agree), another tomorrow.
// Every order is a fixed sequence of today's new cards; a reader hands it out in pages of
// any size, so the cards and their order never depend on the page size.
import type { CandidateRow, NewCandidateRow, ShuffledCandidateRow } from '../store/review-queries.ts';

export const NEW_CARD_ORDERS = ['interleave', 'file', 'random'] as const;
export type NewCardOrder = (typeof NEW_CARD_ORDERS)[number];

/** How the store reads new cards, each a page after the last card read (keyset), so nothing is sorted whole. */
export interface NewCardSource {
  /** In file order; with `deck`, that deck's cards only. */
  filePage(after: NewCandidateRow | null, count: number, deck?: string): NewCandidateRow[];
  /** The decks that may hold new cards, in the order their turns come (least served first). */
  decks(): string[];
  /** In the study day's random order. */
  shuffledPage(after: ShuffledCandidateRow | null, count: number): ShuffledCandidateRow[];
}

/** The next `count` new cards of the sequence (fewer only at its end). */
export type NewCardReader = (count: number) => CandidateRow[];

export function newCardReader(order: NewCardOrder, source: NewCardSource): NewCardReader {
  if (order === 'interleave') return interleaved(source);
  if (order === 'random') return keysetReader((after: ShuffledCandidateRow | null, count) => source.shuffledPage(after, count));
  return keysetReader((after: NewCandidateRow | null, count) => source.filePage(after, count));
}

function keysetReader<Row extends CandidateRow>(page: (after: Row | null, count: number) => Row[]): NewCardReader {
  let last: Row | null = null;
  return (count) => {
    if (count <= 0) return [];
    const rows = page(last, count);
    last = rows.at(-1) ?? last;
    return rows;
  };
}

interface DeckLane {
  deck: string;
  /** Read from the store, not yet handed out. */
  buffer: NewCandidateRow[];
  last: NewCandidateRow | null;
  /** The store gave fewer than asked: the deck has nothing after the buffer. */
  drained: boolean;
  done: boolean;
}

/**
 * Round-robin over the decks: round r gives the r-th new card of every deck that has one,
 * decks in the source's order. Each deck is read lazily, a few cards at a time, so a day of twenty new
 * cards reads at most twenty decks however many there are.
 */
function interleaved(source: NewCardSource): NewCardReader {
  let lanes: DeckLane[] | null = null;
  let live = 0;
  /** The lane whose turn is next. */
  let at = 0;
  return (count) => {
    lanes ??= source.decks().map((deck) => ({ deck, buffer: [], last: null, drained: false, done: false }));
    live = lanes.filter((lane) => !lane.done).length;
    const out: NewCandidateRow[] = [];
    while (out.length < count && live > 0) {
      const lane = lanes[at];
      at = (at + 1) % lanes.length;
      if (lane.done) continue;
      if (lane.buffer.length === 0) {
        // Enough for this deck's share of the page: its turns come once per round.
        const wanted = Math.ceil((count - out.length) / live);
        const rows = lane.drained ? [] : source.filePage(lane.last, wanted, lane.deck);
        if (rows.length === 0) {
          lane.done = true;
          live -= 1;
          continue;
        }
        lane.buffer = rows;
        lane.last = rows.at(-1) ?? null;
        lane.drained = rows.length < wanted;
      }
      out.push(lane.buffer.shift() as NewCandidateRow);
    }
    return out;
  };
}
