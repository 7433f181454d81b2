// kb doctor's check that each card's schedule replays from its log: the ratings
// (review_log) and actions (card_actions) of a card, oldest first, must form one chain:
// each starts from the state the one before left, and the last leaves the card's row as it
// is. A break means a rating was lost or the row was changed behind kb's back (before kb
// rated in one transaction, two kb rate at once could store two log rows for one change),
// and kb undo would refuse that card.
import type { KbDatabase } from './db.ts';
import { sameFsrsState, stateFromColumns, type FsrsColumns } from '../model/fsrs-state.ts';

/** A field of the FSRS state that differs where the log's chain breaks. */
export interface StateDifference {
  field: (typeof STATE_FIELDS)[number];
  /** What the later side holds: the entry's starting state, or the card's row. */
  found: number | null;
  /** What the log left there: the state the entry before left. */
  expected: number | null;
}

export type ReplayProblem =
  /** An entry starts from a state the entry before did not leave: a change was lost. */
  | { id: string; kind: 'lost'; entry: { rating: number | null; action: string | null; at: number }; differences: StateDifference[] }
  /** The card's row is not what its last entry left. */
  | { id: string; kind: 'row'; differences: StateDifference[] };

interface LogEntry {
  card_id: string;
  rating: number | null;
  action: string | null;
  at: number;
  state_before: string;
  state_after: string;
}

export function cardsOffTheirLog(db: KbDatabase): ReplayProblem[] {
  // Ratings before actions at the same instant: an action on a card follows the rating shown with it.
  const entries = db
    .prepare<[], LogEntry>(
      `SELECT card_id, rating, action, at, state_before, state_after FROM (
         SELECT card_id, rating, NULL AS action, reviewed_at AS at, state_before, state_after, 0 AS source, rowid AS seq FROM review_log
         UNION ALL
         SELECT card_id, NULL, action, acted_at, state_before, state_after, 1, rowid FROM card_actions)
       ORDER BY card_id, at, source, seq`,
    )
    .all();
  const current = db.prepare<[string], FsrsColumns>('SELECT * FROM fsrs WHERE card_id = ?');
  const problems: ReplayProblem[] = [];
  let at = 0;
  while (at < entries.length) {
    const id = entries[at].card_id;
    let state: FsrsColumns | null = null;
    let problem: ReplayProblem | null = null;
    for (; at < entries.length && entries[at].card_id === id; at++) {
      const entry = entries[at];
      const before = JSON.parse(entry.state_before) as FsrsColumns;
      if (state !== null && problem === null && !sameFsrsState(stateFromColumns(before), stateFromColumns(state))) {
        problem = { id, kind: 'lost', entry: { rating: entry.rating, action: entry.action, at: entry.at }, differences: differences(before, state) };
      }
      state = JSON.parse(entry.state_after) as FsrsColumns;
    }
    const row = current.get(id);
    if (problem === null && row && state && !sameFsrsState(stateFromColumns(row), stateFromColumns(state))) {
      problem = { id, kind: 'row', differences: differences(row, state) };
    }
    if (problem !== null) problems.push(problem);
  }
  return problems;
}

const STATE_FIELDS = ['reps', 'lapses', 'state', 'due', 'stability', 'difficulty', 'last_review', 'elapsed_days', 'scheduled_days', 'learning_steps'] as const;

/** The FSRS fields that differ between `found` and `expected`. */
function differences(found: FsrsColumns, expected: FsrsColumns): StateDifference[] {
  // A log entry kb did not write may lack fields: null.
  return STATE_FIELDS.filter((field) => found[field] !== expected[field]).map((field) => ({ field, found: found[field] ?? null, expected: expected[field] ?? null }));
}
