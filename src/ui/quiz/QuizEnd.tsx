// The end of a quiz: score, time, and the tags answered worst.
import { Box, Text } from 'ink';
import { durationLabel } from '../../srs/interval-label.ts';
import type { QuizSummary } from '../../app/quiz/quiz-session.ts';
import { percent } from './quiz-text.ts';

export function QuizEnd({ summary, total }: { summary: QuizSummary; total: number }) {
  const color = summary.asked > 0 && summary.correct === summary.asked ? 'green' : 'yellow';
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={color} paddingX={1}>
      <Text bold color={color}>
        {summary.asked < total ? `Quiz stopped after ${summary.asked} of ${total} questions.` : 'Quiz done.'}
      </Text>
      <Text>{`Score: ${summary.correct}/${summary.asked} (${percent(summary.correct, summary.asked)})   Time: ${durationLabel(summary.elapsedMs)}`}</Text>
      {summary.weakestTags.length > 0 ? (
        <Text>{`Weakest tags: ${summary.weakestTags.map((tag) => `${tag.tag} ${tag.correct}/${tag.asked}`).join(', ')}`}</Text>
      ) : (
        <Text>{summary.asked > 0 ? 'No weak tags this time.' : ' '}</Text>
      )}
      <Text dimColor>Enter or q to leave</Text>
    </Box>
  );
}
