// kb doctor's check that each card's schedule replays from its log: the ratings
// (review_log) and actions (card_actions) of a card, oldest first, must form one chain:
// each starts from the state the one before left, and the last leaves the card's row as it
// is. A break means a rating was lost or the row was changed behind kb's back (before kb
// rated in one transaction, two kb rate at once could store two log rows for one change),
// and kb undo would refuse that card.
import type { KbDatabase } from './db.ts';
import { sameFsrsState, stateFromColumns, type FsrsColumns } from '../model/fsrs-state.ts';

export interface ReplayProblem {
  id: string;
  /** What does not replay, in words. */
  problem: string;
}

interface LogEntry {
  card_id: string;
  what: string;
  at: number;
  state_before: string;
  state_after: string;
}

export function cardsOffTheirLog(db: KbDatabase): ReplayProblem[] {
  // Ratings before actions at the same instant: an action on a card follows the rating shown with it.
  const entries = db
    .prepare<[], LogEntry>(
      `SELECT card_id, what, at, state_before, state_after FROM (
         SELECT card_id, 'rating ' || rating AS what, reviewed_at AS at, state_before, state_after, 0 AS source, rowid AS seq FROM review_log
         UNION ALL
         SELECT card_id, action, acted_at, state_before, state_after, 1, rowid FROM card_actions)
       ORDER BY card_id, at, source, seq`,
    )
    .all();
  const current = db.prepare<[string], FsrsColumns>('SELECT * FROM fsrs WHERE card_id = ?');
  const problems: ReplayProblem[] = [];
  let at = 0;
  while (at < entries.length) {
    const id = entries[at].card_id;
    let state: FsrsColumns | null = null;
    let problem: string | null = null;
    for (; at < entries.length && entries[at].card_id === id; at++) {
      const entry = entries[at];
      const before = JSON.parse(entry.state_before) as FsrsColumns;
      if (state !== null && problem === null && !sameFsrsState(stateFromColumns(before), stateFromColumns(state))) {
        problem = `its ${entry.what} of ${new Date(entry.at).toISOString()} starts from a state the entry before did not leave (${differences(before, state)}): a change was lost`;
      }
      state = JSON.parse(entry.state_after) as FsrsColumns;
    }
    const row = current.get(id);
    if (problem === null && row && state && !sameFsrsState(stateFromColumns(row), stateFromColumns(state))) {
      problem = `its schedule is not what its log leaves (${differences(row, state)})`;
    }
    if (problem !== null) problems.push({ id, problem });
  }
  return problems;
}

/** The FSRS fields that differ, as "reps 1 vs 2, due ... vs ...". */
function differences(a: FsrsColumns, b: FsrsColumns): string {
  const fields = ['reps', 'lapses', 'state', 'due', 'stability', 'difficulty', 'last_review', 'elapsed_days', 'scheduled_days', 'learning_steps'] as const;
  // A log entry kb did not write may lack fields: shown as they are.
  const shown = (field: (typeof fields)[number], value: number | null | undefined) =>
    Number.isFinite(value) && (field === 'due' || field === 'last_review') ? new Date(value as number).toISOString() : String(value);
  return fields
    .filter((field) => a[field] !== b[field])
    .map((field) => `${field} ${shown(field, a[field])} vs ${shown(field, b[field])}`)
    .join(', ');
}
