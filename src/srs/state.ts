// Names for FSRS states and answers. A card's memory state is the store's FsrsState
// (real-clock epoch milliseconds, plain numbers).
import type { FsrsState, FsrsStateCode } from '../store/fsrs.ts';

export type { FsrsState };

/** ts-fsrs's State: 0 new, 1 learning, 2 review, 3 relearning. */
export type CardState = FsrsStateCode;
export const NEW: CardState = 0;
export const LEARNING: CardState = 1;
export const REVIEW: CardState = 2;
export const RELEARNING: CardState = 3;

export const STATE_NAMES = ['new', 'learning', 'review', 'relearning'] as const;

/** Again, Hard, Good, Easy: the four answers, numbered as ts-fsrs and Anki number them. */
export type Grade = 1 | 2 | 3 | 4;
export const GRADES: readonly Grade[] = [1, 2, 3, 4];
export const GRADE_NAMES = { 1: 'again', 2: 'hard', 3: 'good', 4: 'easy' } as const;
export type GradeName = (typeof GRADE_NAMES)[Grade];

export function parseGrade(name: string): Grade | null {
  const lower = name.toLowerCase();
  for (const grade of GRADES) {
    if (GRADE_NAMES[grade] === lower || String(grade) === lower) return grade;
  }
  return null;
}
