// What a review writes, in the transaction of the change (a rating, an undo, a card action):
// the card's row in the `fsrs` table, its memory state as ts-fsrs's Card fields plus kb's own
// suspend/bury/leech flags; a rating's `review_log` row, written with the card's new row and
// taken back with it; and the event that logs the change on this device (its review_events row,
// and how far this device's log file is then written). This file is the fsrs table's one
// writer: scan creates a row with every new card; ratings, undo, card actions and replays
// update it. Reading today's queue is review-queries.ts; the cache of every device's log file,
// read and replayed in bulk, review-events.ts.
import type { KbDatabase } from './db.ts';
import { EVENT_COLUMNS, eventValues, INSERT_EVENTS, SET_OFFSET, type EventRow } from './review-events.ts';
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

export interface ReviewLogRow {
  uuid: string;
  card_id: string;
  rating: number;
  reviewed_at: number;
  duration_ms: number;
  state_before: string;
  state_after: string;
  device_id: string;
}

/** A rating's rows: the card's new fsrs row with its review_log row, and undo's taking both back. */
export function ratingQueries(db: KbDatabase) {
  const fsrs = fsrsQueries(db);
  const insertLog = db.prepare(
    `INSERT INTO review_log (uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id)
     VALUES (@uuid, @card_id, @rating, @reviewed_at, @duration_ms, @state_before, @state_after, @device_id)`,
  );
  // The rating this device stored last (rowid order is the order ratings were applied in this
  // database; ratings merged in from other devices' logs are theirs to undo), leaving out those
  // whose id starts with the given prefix (imported history).
  const latestLog = db.prepare<[string, string, string], ReviewLogRow>(
    'SELECT * FROM review_log WHERE device_id = ? AND substr(uuid, 1, length(?)) != ? ORDER BY rowid DESC LIMIT 1',
  );
  const deleteLog = db.prepare<[string]>('DELETE FROM review_log WHERE uuid = ?');
  const standing = db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM review_log WHERE uuid = ? UNION ALL SELECT 1 FROM card_actions WHERE uuid = ? LIMIT 1');
  return {
    /**
     * One rating: the new FSRS row and its log row, together or not at all. `before` may
     * carry more keys than the columns (write-back's restore patch): they go into its JSON.
     */
    recordRating(log: Omit<ReviewLogRow, 'state_before' | 'state_after'>, before: FsrsColumns, after: FsrsColumns): void {
      db.transaction(() => {
        fsrs.writeRow(log.card_id, after);
        insertLog.run({ ...log, state_before: JSON.stringify(before), state_after: JSON.stringify(after) });
      }).immediate();
    },

    /** Undo: the card's row as it was before the rating, and the rating gone from the log. */
    revertRating(uuid: string, cardId: string, before: FsrsColumns): void {
      db.transaction(() => {
        fsrs.writeRow(cardId, before);
        deleteLog.run(uuid);
      }).immediate();
    },

    /** This device's latest rating whose id does not start with `exceptPrefix` (not empty). */
    latestLog(device: string, exceptPrefix: string): ReviewLogRow | null {
      return latestLog.get(device, exceptPrefix, exceptPrefix) ?? null;
    },

    /** Whether a rating or card action with this uuid still stands (an undo removes it). */
    stands(uuid: string): boolean {
      return standing.get(uuid, uuid) !== undefined;
    },
  };
}

export type RatingQueries = ReturnType<typeof ratingQueries>;

/**
 * The event that logs a change made on this device (kb/review-log/device-log.ts), in the
 * change's transaction: its review_events row, and how far this device's file is written once
 * the line is appended there (where the logs' reader goes on from). The statements are those
 * review-events.ts stores the events read from the files with.
 */
export function deviceEventWrites(db: KbDatabase) {
  const insert = db.prepare(`${INSERT_EVENTS} VALUES (${Array(EVENT_COLUMNS).fill('?').join(', ')})`);
  const setOffset = db.prepare<[string, number]>(SET_OFFSET);
  return {
    /** Stores an event; false when one with its id is already there. */
    insert(row: EventRow): boolean {
      return insert.run(...eventValues(row)).changes === 1;
    },
    /** This device's log file `name` now ends at `bytes`, all of it in the database. */
    writtenTo(name: string, bytes: number): void {
      setOffset.run(name, bytes);
    },
  };
}
