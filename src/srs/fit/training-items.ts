// A card's reviews as FSRS's optimizer reads them: each review after the first becomes one
// training item, holding the card's reviews up to it with the days between them (study
// days under the knowledge base's day start). Only items whose last review came on a later
// day than the one before train the long-term model, as fsrs-rs and Anki use them.
import type { HistoryRow } from '../../store/fit-history.ts';
import { reviewDaysBetween } from '../study-day.ts';

export interface TrainingReview {
  rating: number;
  deltaT: number;
}

export interface TrainingItem {
  card: string;
  reviews: TrainingReview[];
  /** When the item's last review was made: time-series splits order by it. */
  at: number;
}

/** `rows` sorted by card, then time (reviewHistory's order). Items come out ordered by time. */
export function trainingItems(rows: readonly HistoryRow[], dayStartsAt: string): TrainingItem[] {
  const items: TrainingItem[] = [];
  let card: string | null = null;
  let reviews: TrainingReview[] = [];
  let last = 0;
  for (const row of rows) {
    if (row.card_id !== card) {
      card = row.card_id;
      reviews = [];
    }
    if (row.rating === null) {
      reviews = [];
      continue;
    }
    const deltaT = reviews.length === 0 ? 0 : Math.max(0, reviewDaysBetween(last, row.at, dayStartsAt));
    reviews = [...reviews, { rating: row.rating, deltaT }];
    last = row.at;
    if (reviews.length > 1 && deltaT > 0) items.push({ card, reviews, at: row.at });
  }
  return items.sort((a, b) => a.at - b.at || (a.card < b.card ? -1 : a.card > b.card ? 1 : 0));
}
