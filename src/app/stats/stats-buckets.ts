// kb stats, computed: pure functions from stored rows to the numbers the charts draw.
import { reviewDayLabel, reviewDayStart, reviewDaysBetween } from '../../srs/study-day.ts';
import { REVIEW, STATE_NAMES } from '../../model/fsrs-state.ts';

export interface DayCount {
  /** Review day, 'YYYY-MM-DD'. */
  day: string;
  count: number;
}

/** Cards due on each of the next `days` review days; today's count includes the overdue. */
export function dueForecast(dues: readonly number[], now: number, dayStartsAt: string, days: number): DayCount[] {
  const counts = new Array<number>(days).fill(0);
  for (const due of dues) {
    const offset = Math.max(0, reviewDaysBetween(now, due, dayStartsAt));
    if (offset < days) counts[offset] += 1;
  }
  return counts.map((count, offset) => ({ day: dayAfter(now, offset, dayStartsAt), count }));
}

function dayAfter(now: number, offset: number, dayStartsAt: string): string {
  const start = reviewDayStart(now, dayStartsAt);
  return reviewDayLabel(new Date(start.getFullYear(), start.getMonth(), start.getDate() + offset, start.getHours(), start.getMinutes()), dayStartsAt);
}

/** Reviews on each of the last `days` review days, oldest first, ending today. */
export function reviewsPerDay(reviewedAt: readonly number[], now: number, dayStartsAt: string, days: number): DayCount[] {
  const counts = new Array<number>(days).fill(0);
  for (const at of reviewedAt) {
    const back = reviewDaysBetween(at, now, dayStartsAt);
    if (back >= 0 && back < days) counts[days - 1 - back] += 1;
  }
  return counts.map((count, index) => ({ day: dayAfter(now, index - (days - 1), dayStartsAt), count }));
}

export interface WeekRetention {
  /** First review day of the week. */
  week: string;
  reviews: number;
  passed: number;
  /** passed / reviews, null for a week without reviews of mature (review-state) cards. */
  retention: number | null;
}

/**
 * True retention per week, as Anki's "true retention": of the reviews of cards in review
 * state (not learning, not new), the share not answered Again. Oldest week first.
 */
export function retentionPerWeek(
  reviews: ReadonlyArray<{ reviewed_at: number; rating: number; state_before: number }>,
  now: number,
  dayStartsAt: string,
  weeks: number,
): WeekRetention[] {
  const days = weeks * 7;
  const out = Array.from({ length: weeks }, (_, index) => ({
    week: dayAfter(now, index * 7 - (days - 1), dayStartsAt),
    reviews: 0,
    passed: 0,
    retention: null as number | null,
  }));
  for (const review of reviews) {
    if (review.state_before !== REVIEW) continue;
    const back = reviewDaysBetween(review.reviewed_at, now, dayStartsAt);
    if (back < 0 || back >= days) continue;
    const week = out[Math.floor((days - 1 - back) / 7)];
    week.reviews += 1;
    if (review.rating > 1) week.passed += 1;
  }
  for (const week of out) week.retention = week.reviews === 0 ? null : week.passed / week.reviews;
  return out;
}

export interface StateCounts {
  new: number;
  learning: number;
  review: number;
  relearning: number;
  suspended: number;
  buried: number;
  total: number;
}

/**
 * Each card counted once, as Anki's card counts do: a suspended or buried card under that, not
 * also under its FSRS state (the rows added up to more than their total, found as a user).
 */
export function stateCounts(rows: ReadonlyArray<{ state: number; suspended: number; buried: number; n: number }>): StateCounts {
  const counts: StateCounts = { new: 0, learning: 0, review: 0, relearning: 0, suspended: 0, buried: 0, total: 0 };
  for (const row of rows) {
    if (row.suspended) counts.suspended += row.n;
    else if (row.buried) counts.buried += row.n;
    else counts[STATE_NAMES[row.state]] += row.n;
    counts.total += row.n;
  }
  return counts;
}

export interface Bucket {
  label: string;
  count: number;
}

/** Counts of values in [edges[i], edges[i+1]), plus one bucket for values from the last edge up. */
export function histogram(values: readonly number[], edges: readonly number[], label: (low: number, high: number | null) => string): Bucket[] {
  const buckets = edges.map((low, i) => ({ label: label(low, edges[i + 1] ?? null), count: 0 }));
  for (const value of values) {
    let index = edges.length - 1;
    while (index > 0 && value < edges[index]) index--;
    buckets[index].count += 1;
  }
  return buckets;
}

/** Stability in days, in the ranges people think in: days, weeks, months, years. */
export const STABILITY_EDGES = [0, 1, 3, 7, 14, 30, 90, 180, 365];
/** FSRS difficulty runs from 1 (easy) to 10 (hard). */
export const DIFFICULTY_EDGES = [1, 2, 3, 4, 5, 6, 7, 8, 9];

export function stabilityLabel(low: number, high: number | null): string {
  return high === null ? `${low}d+` : `${low}-${high}d`;
}

export function difficultyLabel(low: number, high: number | null): string {
  return high === null ? `${low}-10` : `${low}-${high}`;
}
