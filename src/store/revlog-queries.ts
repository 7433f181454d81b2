// The SQL of kb export --revlog / kb import --revlog: the standing ratings with the state
// each started from, and whether a rating is already in the log (an import run twice).
import type { KbDatabase } from './db.ts';

export interface RatingExportRow {
  card_id: string;
  reviewed_at: number;
  rating: number;
  state: number;
  duration_ms: number;
}

export function revlogQueries(db: KbDatabase) {
  // An imported rating's state is the one its file gave (review_events.source_state): a history
  // imported from review on was replayed from a new card where kb knew nothing of it, and
  // exported as new it would be fitted as a new card's first rating by the tools reading it.
  const ratings = db.prepare<[], RatingExportRow>(
    `SELECT r.card_id, r.reviewed_at, r.rating, coalesce(e.source_state, json_extract(r.state_before, '$.state')) AS state, r.duration_ms
     FROM review_log r LEFT JOIN review_events e ON e.id = r.uuid ORDER BY r.reviewed_at, r.card_id, r.rowid`,
  );
  const sameRatings = db.prepare<[string, number, number, number], { n: number }>(
    "SELECT count(*) AS n FROM review_events WHERE card_id = ? AND at >= ? AND at < ? AND kind = 'rate' AND rating = ?",
  );
  const forgetBetween = db.prepare<[string, number, number], { one: number }>(
    "SELECT 1 AS one FROM review_events WHERE card_id = ? AND kind = 'forget' AND at >= ? AND at < ? LIMIT 1",
  );
  const cardExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM fsrs WHERE card_id = ?');
  return {
    ratings(): RatingExportRow[] {
      return ratings.all();
    },
    /** How many ratings the log holds of the card with this answer at a time in [from, until), whatever their event ids. */
    countRatings(cardId: string, time: { from: number; until: number }, rating: number): number {
      return sameRatings.get(cardId, time.from, time.until, rating)?.n ?? 0;
    },
    /** Whether the log holds a forget of the card at a time in [from, until). */
    hasForgetBetween(cardId: string, from: number, until: number): boolean {
      return forgetBetween.get(cardId, from, until) !== undefined;
    },
    cardExists(cardId: string): boolean {
      return cardExists.get(cardId) !== undefined;
    },
  };
}
