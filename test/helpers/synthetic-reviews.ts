// A learner drawn from known FSRS weights: each card is reviewed when ts-fsrs (with those
// weights) schedules it, and recalled with the probability those weights predict. Used to
// check that kb optimize describes a learner better than FSRS's defaults do.
import { createEmptyCard, default_w, fsrs, generatorParameters, type Card, type Grade } from 'ts-fsrs';
import { seededRandom } from '../../src/kb/seeded-random.ts';

export interface SyntheticReview {
  card: string;
  at: number;
  rating: Grade;
}

/**
 * A learner unlike FSRS's defaults: much longer first stabilities, stability that grows
 * faster after each success (w8 + 0.5: x1.65), and a steeper forgetting curve (decay 0.5).
 */
export const LEARNER_WEIGHTS: readonly number[] = [2, 5, 12, 25, ...default_w.slice(4, 8), default_w[8] + 0.5, ...default_w.slice(9, 20), 0.5];


export function syntheticReviews(cards: readonly string[], reviewsPerCard: number, start: number, seed = 7, weights = LEARNER_WEIGHTS): SyntheticReview[] {
  const random = seededRandom(seed);
  const scheduler = fsrs(generatorParameters({ w: [...weights], enable_fuzz: false, enable_short_term: false }));
  const reviews: SyntheticReview[] = [];
  cards.forEach((id, index) => {
    let now = new Date(start + index * 600_000);
    let card: Card = createEmptyCard(now);
    for (let k = 0; k < reviewsPerCard; k++) {
      let rating: Grade;
      if (k === 0) {
        const draw = random();
        rating = draw < 0.15 ? 1 : draw < 0.25 ? 2 : draw < 0.9 ? 3 : 4;
      } else {
        const recalled = random() < scheduler.get_retrievability(card, now, false);
        const draw = random();
        rating = !recalled ? 1 : draw < 0.15 ? 2 : draw < 0.9 ? 3 : 4;
      }
      reviews.push({ card: id, at: now.getTime(), rating });
      const reviewedAt = now.getTime();
      card = scheduler.next(card, now, rating).card;
      // Reviewed on the day it falls due or up to ~80% of its interval late (people are), so
      // the recall a model predicts varies with the delay.
      const interval = card.due.getTime() - reviewedAt;
      now = new Date(card.due.getTime() + Math.floor(random() * 0.8 * interval) + (index % 60) * 60_000);
    }
  });
  return reviews;
}
