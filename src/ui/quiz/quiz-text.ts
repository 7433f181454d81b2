// Plain-text pieces of the quiz shared by the screen, the end line and --json: the one-line
// summary and the countdown label.
import { durationLabel } from '../../srs/interval-label.ts';
import type { QuizSummary } from '../../app/quiz/quiz-session.ts';

export function percent(correct: number, asked: number): string {
  return asked === 0 ? '0%' : `${Math.round((correct / asked) * 100)}%`;
}

/** "2/3 right (67%) in 1m 05s; weakest: metrics 0/1" ("0/0 right (0%)" said nothing: "nothing answered"). */
export function quizSummaryLine(summary: QuizSummary): string {
  if (summary.asked === 0) return `Quiz: nothing answered in ${durationLabel(summary.elapsedMs)}`;
  const weakest = summary.weakestTags.map((tag) => `${tag.tag} ${tag.correct}/${tag.asked}`).join(', ');
  return `Quiz: ${summary.correct}/${summary.asked} right (${percent(summary.correct, summary.asked)}) in ${durationLabel(summary.elapsedMs)}${weakest ? `; weakest: ${weakest}` : ''}`;
}

/** Whole seconds left, rounded up, so the countdown shows 1s until the very end. */
export function secondsLeft(remainingMs: number): number {
  return Math.max(0, Math.ceil(remainingMs / 1000));
}
