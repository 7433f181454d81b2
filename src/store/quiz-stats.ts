// Quiz accuracy by tag, for kb stats: how often answers to each tag's cards were right.
import type { KbDatabase } from './db.ts';

export interface TagAccuracy {
  tag: string;
  asked: number;
  correct: number;
  /** correct / asked. */
  accuracy: number;
}

/**
 * Every tag with quiz answers since `since` (epoch ms; all time by default), weakest first.
 * A card without tags counts under its deck, as the end-of-quiz summary counts it.
 */
export function quizAccuracyByTag(db: KbDatabase, since = 0): TagAccuracy[] {
  const rows = db
    .prepare<[number], { tag: string; asked: number; correct: number }>(
      `SELECT t.tag AS tag, count(*) AS asked, sum(q.correct) AS correct
       FROM quiz_results q
       JOIN (SELECT c.id AS card_id, j.value AS tag FROM cards c, json_each(c.tags) j
             UNION ALL
             SELECT c.id, c.deck FROM cards c WHERE json_array_length(c.tags) = 0) t ON t.card_id = q.card_id
       WHERE q.asked_at >= ?
       GROUP BY t.tag`,
    )
    .all(since);
  return rows
    .map((row) => ({ ...row, accuracy: row.correct / row.asked }))
    .sort((a, b) => a.accuracy - b.accuracy || b.asked - a.asked || a.tag.localeCompare(b.tag));
}
