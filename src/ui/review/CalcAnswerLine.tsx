// Under a calc card's question: the number being typed (before the answer shows), then the
// verdict of the check next to the worked answer.
import { Box, Text } from 'ink';
import type { CalcCheck } from '../../app/review/review-calc.ts';
import { QuizInput } from '../quiz/AnswerInput.tsx';
import { wrapText } from '../text/line-wrap.ts';

export type CalcVerdict = Extract<CalcCheck, { kind: 'checked' }>;

export function CalcAnswerLine({ typed, unit, verdict, revealed, retry = null, width = 80 }: { typed: string; unit: string | null; verdict: CalcVerdict | null; revealed: boolean; retry?: string | null; width?: number }) {
  if (verdict) {
    return (
      <Text bold color={verdict.correct ? 'green' : 'red'}>
        {verdict.verdict}
      </Text>
    );
  }
  // Shown without a check (Space): nothing typed to judge.
  if (revealed) return null;
  return (
    <Box flexDirection="column">
      <QuizInput value={typed} unit={unit} />
      {retry ? <Text color="yellow">{wrapText(retry, width).join('\n')}</Text> : null}
    </Box>
  );
}
