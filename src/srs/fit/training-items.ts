// A card's reviews as FSRS's optimizer reads them: each review after the first becomes one
// training item, holding the card's reviews up to it with the days between them (study
// days under the knowledge base's day start). Only items whose last review came on a later
// day than the one before train the long-term model, as fsrs-rs and Anki use them.
//
// A history that starts mid-life (its first review made while the card was in review or
// relearning: an imported history whose earlier reviews were not exported, or a note whose
// frontmatter counted reviews from before kb) is left out, as fsrs-rs and Anki leave it out:
// taken as a new card's first rating, its first review would teach FSRS's first stabilities
// (w0-w3) what a card long learned does. A forget starts the card's history over.
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

export interface TrainingSet {
  items: TrainingItem[];
  /** Cards with a history left out because it starts mid-life (counted once a card). */
  startedMidLife: number;
}

/** States a review can be made in that no history of a card starts in: review (2) and relearning (3). */
const MID_LIFE_STATES: ReadonlySet<number | null> = new Set([2, 3]);

/** `rows` sorted by card, then time (reviewHistory's order). Items come out ordered by time. */
export function trainingSet(rows: readonly HistoryRow[], dayStartsAt: string): TrainingSet {
  const items: TrainingItem[] = [];
  const midLife = new Set<string>();
  let card: string | null = null;
  let reviews: TrainingReview[] = [];
  // The history since the card's last forget started mid-life: its reviews are left out.
  let skipping = false;
  let last = 0;
  for (const row of rows) {
    if (row.card_id !== card) {
      card = row.card_id;
      reviews = [];
      skipping = false;
    }
    if (row.rating === null) {
      reviews = [];
      skipping = false;
      continue;
    }
    if (reviews.length === 0 && !skipping && MID_LIFE_STATES.has(row.state)) {
      skipping = true;
      midLife.add(card);
    }
    if (skipping) continue;
    const deltaT = reviews.length === 0 ? 0 : Math.max(0, reviewDaysBetween(last, row.at, dayStartsAt));
    reviews = [...reviews, { rating: row.rating, deltaT }];
    last = row.at;
    if (reviews.length > 1 && deltaT > 0) items.push({ card, reviews, at: row.at });
  }
  items.sort((a, b) => a.at - b.at || (a.card < b.card ? -1 : a.card > b.card ? 1 : 0));
  return { items, startedMidLife: midLife.size };
}

/** The training items alone (trainingSet's). */
export function trainingItems(rows: readonly HistoryRow[], dayStartsAt: string): TrainingItem[] {
  return trainingSet(rows, dayStartsAt).items;
}
