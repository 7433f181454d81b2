// What a note's four review fields (last_reviewed, next_review, review_count, mastery_level)
// say for a card's FSRS state: write-back writes them, kb doctor compares and fixes with them.
import type { FsrsState } from '../model/fsrs-state.ts';
import { masteryLevel } from './mastery.ts';
import { reviewDayLabel } from './study-day.ts';

export const REVIEW_FIELD_NAMES = ['last_reviewed', 'next_review', 'review_count', 'mastery_level'] as const;
export type ReviewField = (typeof REVIEW_FIELD_NAMES)[number];

export interface ReviewFields {
  last_reviewed: string | null;
  next_review: string;
  review_count: number;
  mastery_level: number;
}

/** What a note's review fields say for this FSRS state. */
export function reviewFields(state: FsrsState, weights: readonly number[], dayStartsAt: string): ReviewFields {
  return {
    last_reviewed: state.lastReview === null ? null : reviewDayLabel(state.lastReview, dayStartsAt),
    next_review: reviewDayLabel(state.due, dayStartsAt),
    review_count: state.reps,
    mastery_level: masteryLevel(state, weights),
  };
}
