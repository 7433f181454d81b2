// The history kb optimize fits FSRS to: each card's standing ratings, and its forgets (a
// forget starts the card's memory over), oldest first. review_log and card_actions are the
// replayed cache of every device's log, so this is the merged history of all devices.
import type { KbDatabase } from './db.ts';

export interface HistoryRow {
  card_id: string;
  at: number;
  /** 1-4; null for a forget. */
  rating: number | null;
}

export function reviewHistory(db: KbDatabase): HistoryRow[] {
  return db
    .prepare<[], HistoryRow>(
      `SELECT card_id, reviewed_at AS at, rating FROM review_log
       UNION ALL
       SELECT card_id, acted_at, NULL FROM card_actions WHERE action = 'forget'
       ORDER BY card_id, at`,
    )
    .all();
}
