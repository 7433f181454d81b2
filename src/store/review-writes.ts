// The `fsrs` table: each card's memory state, as ts-fsrs's Card fields plus kb's own
// suspend/bury/leech flags. Scan creates a row with every new card; reviews, card actions and
// replays update it. This file is the table's one writer.
import type { KbDatabase } from './db.ts';
import { stateFromColumns, type FsrsColumns, type FsrsState } from '../model/fsrs-state.ts';

export const FSRS_COLUMNS =
  'due, stability, difficulty, elapsed_days, scheduled_days, learning_steps, reps, lapses, state, last_review, suspended, buried_until, leech';

export function fsrsQueries(db: KbDatabase) {
  const get = db.prepare<[string], FsrsColumns>(`SELECT ${FSRS_COLUMNS} FROM fsrs WHERE card_id = ?`);
  // Positional: a cold scan writes one per card (see card-rows.ts's insert).
  const writeState = db.prepare<unknown[]>(
    `INSERT INTO fsrs (card_id, due, stability, difficulty, elapsed_days, scheduled_days, learning_steps,
       reps, lapses, state, last_review)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (card_id) DO UPDATE SET due = excluded.due, stability = excluded.stability,
       difficulty = excluded.difficulty, elapsed_days = excluded.elapsed_days,
       scheduled_days = excluded.scheduled_days, learning_steps = excluded.learning_steps,
       reps = excluded.reps, lapses = excluded.lapses, state = excluded.state, last_review = excluded.last_review`,
  );
  const writeColumns = db.prepare(
    `UPDATE fsrs SET due = @due, stability = @stability, difficulty = @difficulty, elapsed_days = @elapsed_days,
       scheduled_days = @scheduled_days, learning_steps = @learning_steps, reps = @reps, lapses = @lapses,
       state = @state, last_review = @last_review, suspended = @suspended, buried_until = @buried_until,
       leech = coalesce(@leech, leech)
     WHERE card_id = @card_id`,
  );
  const reviewed = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM review_log WHERE card_id = ? LIMIT 1');
  return {
    /** The card's row as stored, flags included. */
    row(cardId: string): FsrsColumns | null {
      return get.get(cardId) ?? null;
    },
    /** The card's memory state. */
    get(cardId: string): FsrsState | null {
      const row = get.get(cardId);
      return row ? stateFromColumns(row) : null;
    },
    /** Writes the memory state (insert or replace); suspend and bury flags are left as they are. */
    write(cardId: string, state: FsrsState): void {
      writeState.run(cardId, state.due, state.stability, state.difficulty, state.elapsedDays, state.scheduledDays, state.learningSteps, state.reps, state.lapses, state.state, state.lastReview);
    },
    /** Writes a whole row (a rating, an action, an undo, a replay). A row from a log entry older than migration 3 has no leech flag: the card keeps its own. */
    writeRow(cardId: string, row: FsrsColumns): void {
      writeColumns.run({ ...row, leech: row.leech ?? null, card_id: cardId });
    },
    /** Whether the card has any rating in kb's review log (then its frontmatter no longer seeds it). */
    hasReviews(cardId: string): boolean {
      return reviewed.get(cardId) !== undefined;
    },
  };
}

export type FsrsQueries = ReturnType<typeof fsrsQueries>;
