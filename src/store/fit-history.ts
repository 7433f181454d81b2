// The history kb optimize fits FSRS to: each card's standing ratings, and its forgets (a
// forget starts the card's memory over), oldest first. review_log and card_actions are the
// replayed cache of every device's log, so this is the merged history of all devices.
import type { KbDatabase } from './db.ts';

export interface HistoryRow {
  card_id: string;
  at: number;
  /** 1-4; null for a forget. */
  rating: number | null;
  /**
   * A rating's card state before it (0 new, 1 learning, 2 review, 3 relearning): as an imported
   * file said it (review_events.source_state), else as kb's replay had the card; null for a forget.
   * An imported history that starts in review is replayed from a new card when kb knew nothing
   * of it, so its state before says "new" where the file says "review".
   */
  state: number | null;
}

export function reviewHistory(db: KbDatabase): HistoryRow[] {
  return db
    .prepare<[], HistoryRow>(
      `SELECT r.card_id, r.reviewed_at AS at, r.rating, coalesce(e.source_state, json_extract(r.state_before, '$.state')) AS state
       FROM review_log r LEFT JOIN review_events e ON e.id = r.uuid
       UNION ALL
       SELECT card_id, acted_at, NULL, NULL FROM card_actions WHERE action = 'forget'
       ORDER BY card_id, at`,
    )
    .all();
}
