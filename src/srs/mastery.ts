// mastery_level, the number kb writes into a note's frontmatter after each review.
//
// Definition: the probability, under FSRS's forgetting curve, that the card is still
// recalled 30 days after its last review, given its current stability:
//
//     mastery = R(t = 30 days, S) = (1 + factor * 30 / S) ^ decay
//
// where decay = -w[20] and factor = 0.9^(1/decay) - 1 (so R(S, S) = 0.9). It depends only
// on the memory (stability), not on the date it is computed, so the file does not go
// stale between reviews. A new card, never reviewed, has mastery 0. Rounded to two
// decimals: 0.90 means a card that would survive a month away with a 90% chance.
import { forgetting_curve } from 'ts-fsrs';
import { NEW, type FsrsState } from '../model/fsrs-state.ts';

export const MASTERY_HORIZON_DAYS = 30;

export function masteryLevel(card: Pick<FsrsState, 'state' | 'stability'>, weights: readonly number[]): number {
  if (card.state === NEW || !(card.stability > 0)) return 0;
  const recall = forgetting_curve(weights, MASTERY_HORIZON_DAYS, card.stability);
  return Math.round(recall * 100) / 100;
}
