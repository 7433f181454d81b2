// kb review reads reviews and new cards from the database a page at a time: it must show
// exactly the cards, in exactly the order, that the whole queue (kb due's) holds.
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase } from '../../src/store/db.ts';
import { reviewQueries, type NewCandidateRow } from '../../src/store/review-queries.ts';
import { ReviewService, type QueueRequest } from '../../src/app/review/review-service.ts';
import { ReviewSession } from '../../src/srs/session-queue.ts';
import { NEW_CARD_ORDERS } from '../../src/srs/new-card-order.ts';
import { sessionQueue } from '../helpers/session-queue.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const NOW = Date.UTC(2026, 2, 10, 12);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

async function collection(cardsPerDeck: number) {
  const root = tempDir('kb-pages-');
  mkdirSync(join(root, 'cards/alpha'), { recursive: true });
  // Decks of unequal sizes, one a sub-deck, so interleaving runs some decks dry before others.
  for (const [deck, count] of [['alpha', cardsPerDeck], ['beta', cardsPerDeck], ['alpha/sub', 4]] as const) {
    const cards = Array.from({ length: count }, (_, i) => `## ${deck} question ${i}?\n\nAnswer ${i}.\n`);
    writeFileSync(join(root, `cards/${deck}.md`), cards.join('\n'));
  }
  const db = openDatabase(':memory:');
  await scanKnowledgeBase({ root, db, writable: true, config: defaultConfig }, { now: NOW - 30 * DAY });
  const ids = (db.prepare('SELECT id FROM cards ORDER BY path, line').all() as Array<{ id: string }>).map((row) => row.id);
  return { root, db, ids };
}

const cardState = fc.record({
  state: fc.constantFrom(0, 1, 2, 3),
  // From two days overdue to two days ahead, often on the same minute (ties broken by id).
  dueMinutes: fc.oneof(fc.integer({ min: -2 * 24 * 60, max: 2 * 24 * 60 }), fc.constant(-30)),
  suspended: fc.boolean().map((b) => b && Math.random() < 0.2),
  buried: fc.constantFrom(false, false, false, true),
  orphan: fc.constantFrom(false, false, false, false, true),
});

/** What the screen gets of a step (newOrder only sorts new cards while the whole queue is built). */
function shown(next: ReturnType<ReviewSession['next']>) {
  return next.kind === 'card' ? { id: next.card.id, state: next.card.state, due: next.card.due } : next;
}

describe('a review session read a page at a time', () => {
  it('shows the cards of the whole queue in its order, with its counts, for any states, limits and page size, and no hidden card', async () => {
    const { root, db, ids } = await collection(15);
    await fc.assert(
      fc.asyncProperty(
        fc.array(cardState, { minLength: ids.length, maxLength: ids.length }),
        fc.record({
          newPerDay: fc.integer({ min: 0, max: 40 }),
          reviewsPerDay: fc.integer({ min: 0, max: 40 }),
          newCardOrder: fc.constantFrom(...NEW_CARD_ORDERS),
        }),
        fc.record({ deck: fc.option(fc.constantFrom('alpha', 'beta'), { nil: undefined }), limit: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }) }),
        fc.integer({ min: 1, max: 7 }),
        async (states, limits, request: QueueRequest, pageSize) => {
          const setState = db.prepare('UPDATE fsrs SET state = ?, due = ?, suspended = ?, buried_until = ? WHERE card_id = ?');
          const setOrphan = db.prepare('UPDATE cards SET orphan = ? WHERE id = ?');
          states.forEach((s, i) => {
            setState.run(s.state, NOW + s.dueMinutes * MINUTE, s.suspended ? 1 : 0, s.buried ? NOW + DAY : null, ids[i]);
            setOrphan.run(s.orphan ? 1 : 0, ids[i]);
          });
          const hidden = new Set(ids.filter((_, i) => states[i].orphan || states[i].suspended || states[i].buried));
          const service = new ReviewService({ root, db, writable: false, config: { ...defaultConfig, ...limits } });
          const dayEnd = service.dayEnd(NOW);
          const whole = new ReviewSession(sessionQueue(service.queue(request, NOW)), dayEnd);
          const paged = service.session(request, NOW, pageSize);
          for (;;) {
            expect(paged.counts()).toEqual(whole.counts());
            const next = whole.next(NOW);
            expect(shown(paged.next(NOW))).toEqual(shown(next));
            if (next.kind !== 'card') break;
            expect(hidden.has(next.card.id), 'an orphaned, suspended or buried card').toBe(false);
            for (const session of [whole, paged]) session.answered(next.card, 3, { state: 2, due: dayEnd + DAY });
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads the same new cards in the same pages whether it walks the cards or sorts the new ones', async () => {
    const { db, ids } = await collection(15);
    const queries = reviewQueries(db);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(0, 0, 2), { minLength: ids.length, maxLength: ids.length }), fc.integer({ min: 1, max: 9 }), async (states, pageSize) => {
        states.forEach((state, i) => db.prepare('UPDATE fsrs SET state = ? WHERE card_id = ?').run(state, ids[i]));
        const pages = (scan: boolean) => {
          const read: string[][] = [];
          let after: NewCandidateRow | null = null;
          for (;;) {
            const page = queries.newPage({}, NOW, NOW + 86_400_000, after, pageSize, scan);
            if (page.length === 0) return read;
            read.push(page.map((row) => row.id));
            after = page.at(-1)!;
          }
        };
        expect(pages(true)).toEqual(pages(false));
        expect(pages(true).flat()).toEqual(ids.filter((_, i) => states[i] === 0));
      }),
      { numRuns: 40 },
    );
  });
  it('brings new cards interleaved by deck, in file order, or shuffled per study day', async () => {
    const { root, db, ids } = await collection(15);
    const deckOf = new Map((db.prepare('SELECT id, deck FROM cards').all() as Array<{ id: string; deck: string }>).map((row) => [row.id, row.deck]));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(0, 0, 2), { minLength: ids.length, maxLength: ids.length }), async (states) => {
        states.forEach((state, i) => db.prepare('UPDATE fsrs SET state = ? WHERE card_id = ?').run(state, ids[i]));
        const fresh = ids.filter((_, i) => states[i] === 0);
        const newIds = (newCardOrder: (typeof NEW_CARD_ORDERS)[number], now = NOW) =>
          new ReviewService({ root, db, writable: false, config: { ...defaultConfig, newPerDay: 1000, newCardOrder } }).queue({}, now).new.map((card) => card.id);

        expect(newIds('file')).toEqual(fresh);

        // Round r holds the r-th new card of each deck that has one, the decks least served
        // (fewest cards no longer new) first, then by name.
        const served = (deck: string) => ids.filter((id, i) => deckOf.get(id) === deck && states[i] !== 0).length;
        const decks = [...new Set(fresh.map((id) => deckOf.get(id)!))].sort((a, b) => served(a) - served(b) || (a < b ? -1 : a > b ? 1 : 0));
        const byDeck = decks.map((deck) => fresh.filter((id) => deckOf.get(id) === deck));
        const rounds = Array.from({ length: Math.max(0, ...byDeck.map((lane) => lane.length)) }, (_, r) => byDeck.flatMap((lane) => lane.slice(r, r + 1)));
        expect(newIds('interleave')).toEqual(rounds.flat());

        const service = new ReviewService({ root, db, writable: false, config: defaultConfig });
        const shuffled = newIds('random');
        expect([...shuffled].sort()).toEqual([...fresh].sort());
        expect(newIds('random', service.dayEnd(NOW) - 1), 'later the same study day').toEqual(shuffled);
        if (fresh.length >= 8) {
          expect(newIds('random', service.dayEnd(NOW) + 1), 'the next study day').not.toEqual(shuffled);
          expect(shuffled).not.toEqual(fresh);
        }
      }),
      { numRuns: 30 },
    );
  });
});
