// The end of a quiz: score, time, and the tags answered worst.
import { Box, Text } from 'ink';
import { durationLabel } from '../../srs/interval-label.ts';
import type { QuizSummary } from '../../app/quiz/quiz-session.ts';
import { percent } from './quiz-text.ts';
import { packParts } from '../text/pack-parts.ts';

/** The border and padding on each side of the box's lines. */
const FRAME_COLUMNS = 4;

export function QuizEnd({ summary, total, width }: { summary: QuizSummary; total: number; width: number }) {
  const color = summary.asked > 0 && summary.correct === summary.asked ? 'green' : 'yellow';
  // Broken between its figures on a narrow terminal, never inside one.
  const tally = packParts([`Score: ${summary.correct}/${summary.asked} (${percent(summary.correct, summary.asked)})`, `Time: ${durationLabel(summary.elapsedMs)}`], '   ', width - FRAME_COLUMNS);
  return (
    // As wide as its lines, not the terminal.
    <Box flexDirection="column" alignSelf="flex-start" borderStyle="round" borderColor={color} paddingX={1}>
      <Text bold color={color}>
        {summary.asked < total ? `Quiz stopped after ${summary.asked} of ${total} questions.` : 'Quiz done.'}
      </Text>
      <Text>{tally.join('\n')}</Text>
      {summary.weakestTags.length > 0 ? (
        <Text>{`Weakest tags: ${summary.weakestTags.map((tag) => `${tag.tag} ${tag.correct}/${tag.asked}`).join(', ')}`}</Text>
      ) : (
        <Text>{summary.asked > 0 ? 'No weak tags this time.' : ' '}</Text>
      )}
      <Text dimColor>Enter or q to leave</Text>
    </Box>
  );
}
