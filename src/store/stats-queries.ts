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
  // A buried card comes back when its bury ends (the next study day), if it is due by then:
  // it counts from then, as kb due and kb review take it (it was among today's, found as a user).
  const dues = db.prepare<{ now: number; until: number }, { due: number }>(
    `SELECT comes_due AS due FROM (
       SELECT max(f.due, CASE WHEN f.buried_until > @now THEN f.buried_until ELSE 0 END) AS comes_due
       ${LIVE} AND f.suspended = 0 AND f.state != 0
     ) WHERE comes_due < @until`,
  );
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
    /** When scheduled (not new, not suspended) cards come due, before `until`: a buried one not before its bury ends. */
    dueTimes(now: number, until: number): number[] {
      return dues.all({ now, until }).map((row) => row.due);
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
