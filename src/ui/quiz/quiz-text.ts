// Plain-text pieces of the quiz shared by the screen, the end line and --json: the one-line
// summary and the countdown label.
import stringWidth from 'string-width';
import { durationLabel } from '../../srs/interval-label.ts';
import type { QuizSummary, TagScore } from '../../app/quiz/quiz-session.ts';
import { packParts } from '../text/pack-parts.ts';
import { truncateToWidth } from '../text/truncate.ts';

export function percent(correct: number, asked: number): string {
  return asked === 0 ? '0%' : `${Math.round((correct / asked) * 100)}%`;
}

/**
 * "metrics 2/3": a tag and its score, the tag cut with "…" where the pair is wider than `room`
 * cells, so that the two always share a line (a long tag wrapped its score onto the next one).
 */
export function tagScore(tag: TagScore, room = Infinity): string {
  const score = `${tag.correct}/${tag.asked}`;
  return `${truncateToWidth(tag.tag, Math.max(2, room - 1 - stringWidth(score)))} ${score}`;
}

const SUMMARY_LEAD = 'Quiz: ';

/**
 * "Quiz: 2/3 right (67%) in 1m 05s; weakest: metrics 0/1" ("0/0 right (0%)" said nothing:
 * "nothing answered"). Wider than `width` cells, it breaks between the tags, under its "Quiz: ",
 * each tag beside its score: a terminal's wrap (or a wrap at a tag's hyphen) split them.
 */
export function quizSummaryLine(summary: QuizSummary, width = Infinity): string {
  if (summary.asked === 0) return `Quiz: nothing answered in ${durationLabel(summary.elapsedMs)}`;
  const head = `${summary.correct}/${summary.asked} right (${percent(summary.correct, summary.asked)}) in ${durationLabel(summary.elapsedMs)}`;
  const tags = summary.weakestTags;
  const line = `${SUMMARY_LEAD}${head}${tags.length > 0 ? `; weakest: ${tags.map((tag) => tagScore(tag)).join(', ')}` : ''}`;
  if (tags.length === 0 || stringWidth(line) <= width) return line;
  const room = Math.max(12, width - SUMMARY_LEAD.length);
  const parts = tags.map((tag, i) => (i < tags.length - 1 ? `${tagScore(tag, room - 1)},` : tagScore(tag, room)));
  return packParts([`${head}; weakest:`, ...parts], ' ', room)
    .map((row, i) => (i === 0 ? SUMMARY_LEAD : ' '.repeat(SUMMARY_LEAD.length)) + row)
    .join('\n');
}

/** Whole seconds left, rounded up, so the countdown shows 1s until the very end. */
export function secondsLeft(remainingMs: number): number {
  return Math.max(0, Math.ceil(remainingMs / 1000));
}
