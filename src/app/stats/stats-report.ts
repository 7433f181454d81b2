// Everything kb stats shows, gathered from the store in one pass (JSON-ready).
import type { KbDatabase } from '../../store/db.ts';
import { countLeeches } from '../../store/card-list.ts';
import { quizAccuracyByTag, type TagAccuracy } from '../../store/quiz-stats.ts';
import { statsQueries } from '../../store/stats-queries.ts';
import { nextReviewDayStart, reviewDayStart } from '../../srs/study-day.ts';
import type { ReviewSettings } from '../../srs/review-settings.ts';
import {
  DIFFICULTY_EDGES,
  difficultyLabel,
  dueForecast,
  histogram,
  retentionPerWeek,
  reviewsPerDay,
  STABILITY_EDGES,
  stabilityLabel,
  stateCounts,
  type Bucket,
  type DayCount,
  type StateCounts,
  type WeekRetention,
} from './stats-buckets.ts';

export const FORECAST_DAYS = 30;
export const HISTORY_WEEKS = 12;

export interface StatsReport {
  generatedAt: string;
  counts: StateCounts;
  /** Cards flagged leech (kb cards --state leech lists them). */
  leeches: number;
  forecast: DayCount[];
  reviewsPerDay: DayCount[];
  retention: WeekRetention[];
  /** Over the whole history window: reviews of review-state cards not answered Again. */
  overallRetention: number | null;
  stability: Bucket[];
  difficulty: Bucket[];
  /** Quiz answers by tag over all time, weakest first (quizzes do not touch the FSRS state). */
  quizAccuracy: TagAccuracy[];
}

export function collectStats(db: KbDatabase, settings: ReviewSettings, now: number): StatsReport {
  const queries = statsQueries(db);
  const { dayStartsAt } = settings;
  let horizon = nextReviewDayStart(now, dayStartsAt);
  for (let day = 1; day < FORECAST_DAYS; day++) horizon = nextReviewDayStart(horizon, dayStartsAt);
  const historyStart = reviewDayStart(now, dayStartsAt);
  const since = new Date(historyStart.getFullYear(), historyStart.getMonth(), historyStart.getDate() - (HISTORY_WEEKS * 7 - 1), historyStart.getHours(), historyStart.getMinutes()).getTime();
  const reviews = queries.reviewsSince(since);
  const retention = retentionPerWeek(reviews, now, dayStartsAt, HISTORY_WEEKS);
  const mature = retention.reduce((sum, week) => sum + week.reviews, 0);
  const passed = retention.reduce((sum, week) => sum + week.passed, 0);
  const memory = queries.memory();
  return {
    generatedAt: new Date(now).toISOString(),
    counts: stateCounts(queries.stateCounts(now)),
    leeches: countLeeches(db),
    forecast: dueForecast(queries.dueTimes(now, horizon.getTime()), now, dayStartsAt, FORECAST_DAYS),
    reviewsPerDay: reviewsPerDay(reviews.map((review) => review.reviewed_at), now, dayStartsAt, HISTORY_WEEKS * 7),
    retention,
    overallRetention: mature === 0 ? null : passed / mature,
    stability: histogram(memory.map((m) => m.stability), STABILITY_EDGES, stabilityLabel),
    difficulty: histogram(memory.map((m) => m.difficulty), DIFFICULTY_EDGES, difficultyLabel),
    quizAccuracy: quizAccuracyByTag(db),
  };
}
