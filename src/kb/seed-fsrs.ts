// The FSRS state a card starts with in kb, seeded from a note's frontmatter history.
//
// Mapping (a note that kb has never reviewed; cards files carry no history and start New):
// - Dates: `YYYY-MM-DD` means that local day at the configured day start (dayStartsAt,
//   04:00 by default); a full timestamp is taken as written; anything else is ignored.
// - review_count > 0 and a valid last_reviewed: state Review (2), reps = review_count,
//   last_review = last_reviewed.
//     * stability: the interval next_review - last_reviewed in days when next_review is later
//       (at the default 90% target FSRS schedules a card after about one stability);
//       else, with a mastery_level in (0, 1) read as today's probability of recall, the
//       stability that gives that recall after the days since last_reviewed (FSRS's
//       forgetting curve, inverted); else FSRS's initial stability for a first "Good".
//     * due: next_review when given, else last_reviewed + stability.
//     * a next_review on a day before last_reviewed (a hand edit; warned) counts as none for
//       both, so the card is scheduled from last_reviewed.
//     * difficulty: easy 3, medium 5, hard 7 on FSRS's 1..10 scale (medium when missing).
// - Otherwise (never reviewed, or a count without a last_reviewed date): state New,
//   due = next_review when given, else now; reps = review_count; stability and difficulty
//   0 (FSRS sets them at the first rating, as for any new card).
// lapses, learning steps and elapsed days start at 0.
import { default_w, forgetting_curve, S_MAX, S_MIN } from 'ts-fsrs';
import type { FsrsState } from '../model/fsrs-state.ts';
import { parseFrontmatterDate } from '../srs/study-day.ts';
import { nextReviewBeforeLastReviewed } from './frontmatter-fields.ts';
import type { Difficulty, NoteSeed } from '../model/knowledge-base.ts';

const dayMs = 86_400_000;

/** Where each frontmatter difficulty sits on FSRS's 1 (easiest) .. 10 (hardest) scale. */
export const difficultyOnFsrsScale: Record<Difficulty, number> = { easy: 3, medium: 5, hard: 7 };

/** The stability (days) at which recall falls to `recall` after `elapsedDays` (FSRS forgetting curve, by bisection). */
export function stabilityForRecall(recall: number, elapsedDays: number): number {
  let low = S_MIN;
  let high = S_MAX;
  for (let i = 0; i < 100; i++) {
    const mid = (low + high) / 2;
    if (forgetting_curve(default_w, elapsedDays, mid) < recall) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

export function newCardState(due: number, reps = 0): FsrsState {
  return { due, stability: 0, difficulty: 0, elapsedDays: 0, scheduledDays: 0, learningSteps: 0, reps, lapses: 0, state: 0, lastReview: null };
}

/** `fallbackDue` is the due date of a New card with no next_review (now, or the one it already has). */
export function seedFsrsState(seed: NoteSeed | null, now: number, dayStartsAt: string, fallbackDue = now): FsrsState {
  if (seed === null) return newCardState(fallbackDue);
  const lastReview = parseFrontmatterDate(seed.lastReviewed, dayStartsAt);
  let nextReview = parseFrontmatterDate(seed.nextReview, dayStartsAt);
  const reps = Math.max(0, Math.floor(seed.reviewCount ?? 0));
  if (reps === 0 || lastReview === null) return newCardState(nextReview ?? fallbackDue, reps);
  // A next_review before last_reviewed (warned when the note is read) is left out: the card is
  // scheduled from its last review, not made due on a day before it.
  if (nextReviewBeforeLastReviewed(seed)) nextReview = null;

  let stability: number;
  if (nextReview !== null && nextReview > lastReview) {
    stability = (nextReview - lastReview) / dayMs;
  } else if (seed.masteryLevel !== null && seed.masteryLevel > 0 && seed.masteryLevel < 1 && now > lastReview) {
    stability = stabilityForRecall(seed.masteryLevel, (now - lastReview) / dayMs);
  } else {
    stability = default_w[2];
  }
  stability = Math.min(S_MAX, Math.max(S_MIN, stability));
  return {
    due: nextReview ?? lastReview + Math.round(stability * dayMs),
    stability,
    difficulty: difficultyOnFsrsScale[seed.difficulty ?? 'medium'],
    elapsedDays: 0,
    scheduledDays: Math.max(1, Math.round(stability)),
    learningSteps: 0,
    reps,
    lapses: 0,
    state: 2,
    lastReview,
  };
}
