// The `fsrs` table: each card's memory state, as ts-fsrs's Card fields plus kb's own
// suspend/bury flags. Scan creates a row with every new card; reviews update it.
import type { KbDatabase } from './db.ts';

/** FSRS learning state, as ts-fsrs numbers it. */
export type FsrsStateCode = 0 | 1 | 2 | 3;
export const FsrsStateCodes = { new: 0, learning: 1, review: 2, relearning: 3 } as const;

export interface FsrsState {
  due: number;
  stability: number;
  difficulty: number;
  elapsedDays: number;
  scheduledDays: number;
  learningSteps: number;
  reps: number;
  lapses: number;
  state: FsrsStateCode;
  lastReview: number | null;
}

export interface FsrsRow extends FsrsState {
  cardId: string;
  suspended: boolean;
  buriedUntil: number | null;
}

/** The FSRS fields as columns (and as ts-fsrs spells them): snake_case, plain numbers. */
export interface FsrsFields {
  due: number;
  stability: number;
  difficulty: number;
  elapsed_days: number;
  scheduled_days: number;
  learning_steps: number;
  reps: number;
  lapses: number;
  state: FsrsStateCode;
  last_review: number | null;
}

/** An fsrs row as stored, column for column: review_log.state_before / state_after hold it as JSON. */
export interface FsrsColumns extends FsrsFields {
  suspended: 0 | 1;
  buried_until: number | null;
  /** 1 for a leech (migration 3); absent from log rows written before it. */
  leech?: 0 | 1;
}

type RawFsrsRow = FsrsColumns & { card_id: string };

export function fieldsFromState(state: FsrsState): FsrsFields {
  return {
    due: state.due,
    stability: state.stability,
    difficulty: state.difficulty,
    elapsed_days: state.elapsedDays,
    scheduled_days: state.scheduledDays,
    learning_steps: state.learningSteps,
    reps: state.reps,
    lapses: state.lapses,
    state: state.state,
    last_review: state.lastReview,
  };
}

export function stateFromColumns(row: FsrsFields): FsrsState {
  return {
    due: row.due,
    stability: row.stability,
    difficulty: row.difficulty,
    elapsedDays: row.elapsed_days,
    scheduledDays: row.scheduled_days,
    learningSteps: row.learning_steps,
    reps: row.reps,
    lapses: row.lapses,
    state: row.state,
    lastReview: row.last_review,
  };
}

export function columnsFromState(state: FsrsState, flags: { suspended: boolean; buriedUntil: number | null }): FsrsColumns {
  return { ...fieldsFromState(state), suspended: flags.suspended ? 1 : 0, buried_until: flags.buriedUntil };
}

export function fsrsFromRow(row: RawFsrsRow): FsrsRow {
  return { cardId: row.card_id, ...stateFromColumns(row), suspended: row.suspended === 1, buriedUntil: row.buried_until };
}

export function sameFsrsState(a: FsrsState, b: FsrsState): boolean {
  return (
    a.due === b.due &&
    a.stability === b.stability &&
    a.difficulty === b.difficulty &&
    a.elapsedDays === b.elapsedDays &&
    a.scheduledDays === b.scheduledDays &&
    a.learningSteps === b.learningSteps &&
    a.reps === b.reps &&
    a.lapses === b.lapses &&
    a.state === b.state &&
    a.lastReview === b.lastReview
  );
}

export function fsrsQueries(db: KbDatabase) {
  const get = db.prepare<[string], RawFsrsRow>('SELECT * FROM fsrs WHERE card_id = ?');
  const all = db.prepare<[], RawFsrsRow>('SELECT * FROM fsrs');
  const write = db.prepare(
    `INSERT INTO fsrs (card_id, due, stability, difficulty, elapsed_days, scheduled_days, learning_steps,
       reps, lapses, state, last_review)
     VALUES (@cardId, @due, @stability, @difficulty, @elapsedDays, @scheduledDays, @learningSteps,
       @reps, @lapses, @state, @lastReview)
     ON CONFLICT (card_id) DO UPDATE SET due = excluded.due, stability = excluded.stability,
       difficulty = excluded.difficulty, elapsed_days = excluded.elapsed_days,
       scheduled_days = excluded.scheduled_days, learning_steps = excluded.learning_steps,
       reps = excluded.reps, lapses = excluded.lapses, state = excluded.state, last_review = excluded.last_review`,
  );
  const reviewed = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM review_log WHERE card_id = ? LIMIT 1');
  return {
    get(cardId: string): FsrsRow | null {
      const row = get.get(cardId);
      return row ? fsrsFromRow(row) : null;
    },
    all(): Map<string, FsrsRow> {
      const rows = new Map<string, FsrsRow>();
      for (const row of all.iterate()) rows.set(row.card_id, fsrsFromRow(row));
      return rows;
    },
    /** Writes the memory state (insert or replace); suspend and bury flags are left as they are. */
    write(cardId: string, state: FsrsState): void {
      write.run({ cardId, ...state });
    },
    /** Whether the card has any rating in kb's review log (then its frontmatter no longer seeds it). */
    hasReviews(cardId: string): boolean {
      return reviewed.get(cardId) !== undefined;
    },
  };
}

export type FsrsQueries = ReturnType<typeof fsrsQueries>;
