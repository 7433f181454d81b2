// The SQL behind kb stats: raw rows only; src/app/stats/stats-buckets.ts buckets them.
import type { KbDatabase } from './db.ts';

export interface LoggedReview {
  reviewed_at: number;
  rating: number;
  /** The card's FSRS state before this review (0 new .. 3 relearning). */
  state_before: number;
  duration_ms: number;
}

export interface StateCountRow {
  state: number;
  suspended: number;
  buried: number;
  n: number;
}

const LIVE = 'FROM fsrs f JOIN cards c ON c.id = f.card_id WHERE c.orphan = 0';

export function statsQueries(db: KbDatabase) {
  const dues = db.prepare<[number], { due: number }>(`SELECT f.due AS due ${LIVE} AND f.suspended = 0 AND f.state != 0 AND f.due < ?`);
  const reviews = db.prepare<[number], LoggedReview>(
    `SELECT reviewed_at, rating, json_extract(state_before, '$.state') AS state_before, duration_ms
     FROM review_log WHERE reviewed_at >= ? ORDER BY reviewed_at`,
  );
  const states = db.prepare<[number], StateCountRow>(
    `SELECT f.state AS state, f.suspended AS suspended,
            CASE WHEN f.buried_until IS NOT NULL AND f.buried_until > ? THEN 1 ELSE 0 END AS buried, count(*) AS n
     ${LIVE} GROUP BY 1, 2, 3`,
  );
  const memory = db.prepare<[], { stability: number; difficulty: number }>(`SELECT f.stability, f.difficulty ${LIVE} AND f.state != 0`);
  return {
    /** Due times of scheduled (not new, not suspended) cards due before `until`. */
    dueTimes(until: number): number[] {
      return dues.all(until).map((row) => row.due);
    },
    reviewsSince(since: number): LoggedReview[] {
      return reviews.all(since);
    },
    stateCounts(now: number): StateCountRow[] {
      return states.all(now);
    },
    /** Stability and difficulty of every card reviewed at least once. */
    memory(): Array<{ stability: number; difficulty: number }> {
      return memory.all();
    },
  };
}
