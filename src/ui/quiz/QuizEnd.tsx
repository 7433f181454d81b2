// The end of a quiz: score, time, and the tags answered worst.
import { Text } from 'ink';
import { durationLabel } from '../../srs/interval-label.ts';
import type { QuizSummary } from '../../app/quiz/quiz-session.ts';
import { percent } from './quiz-text.ts';
import { SummaryBox } from '../summary-box.tsx';

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
        <Text>{`Weakest tags: ${summary.weakestTags.map((tag) => `${tag.tag} ${tag.correct}/${tag.asked}`).join(', ')}`}</Text>
      ) : (
        <Text>{summary.asked > 0 ? 'No weak tags this time.' : ' '}</Text>
      )}
      <Text dimColor>Enter or q to leave</Text>
    </SummaryBox>
  );
}
