// A card's schedule and flags as every command's --json gives them (kb cards, kb rate, kb undo),
// so a script can join their outputs on the card's `id`: state names, not ts-fsrs's numbers;
// ISO times, not epoch milliseconds; camelCase keys. kb due gives `state` and `due` the same way.
// (kb rate and kb undo printed the service's own objects: `cardId`, `state: 1`, epoch `due`.)
import { STATE_NAMES, type FsrsColumns } from '../model/fsrs-state.ts';
import type { WritebackResult } from '../kb/writeback.ts';
import { listedDue } from '../ui/text/card-table.ts';

type ScheduleColumns = Pick<FsrsColumns, 'state' | 'due' | 'stability' | 'difficulty' | 'reps' | 'lapses' | 'last_review'>;
type FlagColumns = Pick<FsrsColumns, 'suspended' | 'buried_until' | 'leech'>;

/** state, due (null for a new card due now, as kb cards lists it), stability, difficulty, reps, lapses, lastReview. */
export function scheduleJson(row: ScheduleColumns, now: number) {
  return {
    state: STATE_NAMES[row.state],
    due: listedDue(row.state, row.due, now),
    // A new card has no memory state yet: FSRS's 0 is no stability and no difficulty (its scale is 1-10).
    stability: row.state === 0 ? null : row.stability,
    difficulty: row.state === 0 ? null : row.difficulty,
    reps: row.reps,
    lapses: row.lapses,
    lastReview: row.last_review === null ? null : new Date(row.last_review).toISOString(),
  };
}

/** suspended, buried (until a later time than now), leech: the flags kb cards --state filters on. */
export function flagsJson(row: FlagColumns, now: number) {
  return {
    suspended: row.suspended === 1,
    buried: row.buried_until !== null && row.buried_until > now,
    leech: row.leech === 1,
  };
}

/**
 * What became of the note's review fields: null for a card kb does not write back (a deck's
 * card, the bundled knowledge base), else its status, the note's path where it was written,
 * and the reason where it was refused (the rating or undo is stored all the same).
 */
export function writebackJson(result: WritebackResult | null) {
  if (result === null) return null;
  switch (result.status) {
    case 'written':
    case 'restored':
      return { status: result.status, path: result.rewrite.path };
    case 'unchanged':
      return { status: result.status };
    case 'refused':
      return { status: result.status, reason: result.reason };
  }
}
