// The end of a quiz: score, time, and the tags answered worst.
import { Text } from 'ink';
import stringWidth from 'string-width';
import { durationLabel } from '../../srs/interval-label.ts';
import type { QuizSummary, TagScore } from '../../app/quiz/quiz-session.ts';
import { percent, tagScore } from './quiz-text.ts';
import { FRAME_COLUMNS, SummaryBox } from '../summary-box.tsx';
import { padToWidth, truncateToWidth } from '../text/truncate.ts';

/**
 * "Weakest tags: metrics 1/3, kv-cache 0/2" where that fits the box; else a table, a tag a row
 * and its score in a column beside it, a tag too long for the row cut with "…" (at 80 columns
 * long tags wrapped, and a score landed on the next line apart from its tag).
 */
function weakestTagsText(tags: readonly TagScore[], room: number): string {
  const line = `Weakest tags: ${tags.map((tag) => tagScore(tag)).join(', ')}`;
  if (stringWidth(line) <= room) return line;
  const scores = tags.map((tag) => `${tag.correct}/${tag.asked}`);
  const scoreWidth = Math.max(...scores.map((score) => score.length));
  const tagWidth = Math.min(Math.max(...tags.map((tag) => stringWidth(tag.tag))), Math.max(2, room - 4 - scoreWidth));
  const rows = tags.map((tag, i) => `  ${padToWidth(truncateToWidth(tag.tag, tagWidth), tagWidth)}  ${scores[i]!.padStart(scoreWidth)}`);
  return ['Weakest tags:', ...rows].join('\n');
}

export function QuizEnd({ summary, total, width }: { summary: QuizSummary; total: number; width: number }) {
  const color = summary.asked > 0 && summary.correct === summary.asked ? 'green' : 'yellow';
  return (
    <SummaryBox
      title={summary.asked < total ? `Quiz stopped after ${summary.asked} of ${total} questions.` : 'Quiz done.'}
      color={color}
      // No question answered: no score to give ("0/0 (0%)" read as a failed quiz).
      tally={[summary.asked === 0 ? 'Score: -' : `Score: ${summary.correct}/${summary.asked} (${percent(summary.correct, summary.asked)})`, `Time: ${durationLabel(summary.elapsedMs)}`]}
      width={width}
    >
      {summary.weakestTags.length > 0 ? (
        <Text>{weakestTagsText(summary.weakestTags, width - FRAME_COLUMNS)}</Text>
      ) : (
        <Text>{summary.asked > 0 ? 'No weak tags this time.' : ' '}</Text>
      )}
      <Text dimColor>Enter or q to leave</Text>
    </SummaryBox>
  );
}
