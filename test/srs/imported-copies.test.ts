// An imported rating (kb import --revlog) that another clone's log holds under its own id is
// the same review: the replay counts it once, by a rule that reads a card's events as a set,
// so every clone skips the same copies whatever order the logs arrived in.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importedCopies, importedTimeWindow } from '../../src/srs/imported-copies.ts';
import { replayCard } from '../../src/srs/replay.ts';
import { compareEventRows, type EventRow } from '../../src/store/review-events.ts';
import { FsrsScheduler } from '../../src/srs/fsrs.ts';
import { columnsFromState } from '../../src/model/fsrs-state.ts';
import { newCardState } from '../../src/kb/seed-fsrs.ts';
import { testSettings } from './settings.ts';

const T = Date.UTC(2026, 0, 5, 12, 0, 0, 123);
const SECOND = T - (T % 1000);

function rating(id: string, at: number, value: number, device = 'dev-a', n = 0): EventRow {
  return { id, device, n, card_id: 'c1', at, kind: 'rate', rating: value, duration_ms: 0, target: null, reset_counts: 0, seed: null, day: '2026-01-05', source_state: null };
}

describe('imported copies of a rating', () => {
  it('are the imported ratings of the same card and answer at the same time, to the ms or to the whole second the CSV held', () => {
    const original = rating('uuid-1', T, 3);
    expect(importedCopies([original, rating('revlog-ms', T, 3, 'dev-b')])).toEqual(new Set(['revlog-ms']));
    expect(importedCopies([original, rating('revlog-s', SECOND, 3, 'dev-b')])).toEqual(new Set(['revlog-s']));
    // Another answer, another millisecond, another second: another review.
    expect(importedCopies([original, rating('revlog-x', T, 2, 'dev-b')])).toEqual(new Set());
    expect(importedCopies([original, rating('revlog-x', T + 1, 3, 'dev-b')])).toEqual(new Set());
    expect(importedCopies([original, rating('revlog-x', SECOND + 1000, 3, 'dev-b')])).toEqual(new Set());
    // Two ratings kb logged at one time (the second waited on the first's lock) are two reviews.
    expect(importedCopies([original, rating('uuid-2', T, 3, 'dev-a', 1)])).toEqual(new Set());
    // Imported in milliseconds by one clone and in seconds by another: the coarser one is the copy.
    expect(importedCopies([rating('revlog-ms', T, 3), rating('revlog-s', SECOND, 3, 'dev-b')])).toEqual(new Set(['revlog-s']));
    expect(importedTimeWindow(T)).toEqual({ from: T, until: T + 1 });
    expect(importedTimeWindow(SECOND)).toEqual({ from: SECOND, until: SECOND + 1000 });
  });

  it('each rating is the original of one copy at most: two identical rows of a file in whole seconds are two reviews (found as a user: one was lost)', () => {
    const [k1, k2] = [rating('uuid-1', SECOND + 100, 3), rating('uuid-2', SECOND + 700, 3, 'dev-a', 1)];
    // Imported rows 1 and 2 of the same card, second and answer (their ids count them).
    const [s1, s2] = [rating('revlog-s1', SECOND, 3, 'dev-b'), rating('revlog-s2', SECOND, 3, 'dev-b', 1)];
    expect(importedCopies([s1, s2])).toEqual(new Set());
    // Both logged on another device: both copies. Only one: the other is a review of its own.
    expect(importedCopies([k1, k2, s2, s1])).toEqual(new Set(['revlog-s1', 'revlog-s2']));
    expect(importedCopies([s2, k2, s1]).size).toBe(1);
    // A copy in ms takes its own original first, whatever the order: the one in seconds is then its copy.
    const ms = rating('revlog-ms', SECOND + 100, 3, 'dev-c');
    for (const events of [[s1, k1, ms], [ms, s1, k1], [k1, ms, s1]]) expect(importedCopies(events)).toEqual(new Set(['revlog-ms', 'revlog-s1']));
  });

  it('are skipped by the replay, the same in any order the events were gathered, as if only the originals were logged', () => {
    const scheduler = new FsrsScheduler(testSettings());
    const start = { ...columnsFromState(newCardState(T - 86_400_000), { suspended: false, buriedUntil: null }), leech: 0 as const };
    const ratings = fc.array(fc.record({ day: fc.nat(30), ms: fc.nat(999), value: fc.integer({ min: 1, max: 4 }) }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(ratings, fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), fc.array(fc.nat(), { minLength: 12, maxLength: 12 }), (drawn, picked, inSeconds, order) => {
        const originals = drawn.map((draw, n) => rating(`uuid-${n}`, T + draw.day * 86_400_000 + draw.ms, draw.value, 'dev-a', n));
        const copies = [...new Set(picked.map((index) => index % originals.length))].map((index, n) => {
          const at = inSeconds ? originals[index].at - (originals[index].at % 1000) : originals[index].at;
          return rating(`revlog-${index}`, at, originals[index].rating as number, 'dev-b', n);
        });
        const alone = replayCard(scheduler, 'c1', [...originals].sort(compareEventRows), start);
        const shuffled = [...originals, ...copies].map((event, index) => ({ event, key: order[index % order.length] + index })).sort((a, b) => a.key - b.key).map(({ event }) => event);
        expect(importedCopies(shuffled)).toEqual(new Set(copies.map((copy) => copy.id)));
        const merged = replayCard(scheduler, 'c1', shuffled.sort(compareEventRows), start);
        expect(merged.row).toEqual(alone.row);
        expect(merged.entries.map((entry) => entry.event.id)).toEqual(alone.entries.map((entry) => entry.event.id));
      }),
      { numRuns: 300 },
    );
  });
});
