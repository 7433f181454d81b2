// Under a calc card's question: the number being typed (before the answer shows), then the
// verdict of the check next to the worked answer.
import { Text } from 'ink';
import type { CalcCheck } from '../../app/review/review-calc.ts';
import { QuizInput } from '../quiz/AnswerInput.tsx';

export type CalcVerdict = Extract<CalcCheck, { kind: 'checked' }>;

export function CalcAnswerLine({ typed, unit, verdict, revealed }: { typed: string; unit: string | null; verdict: CalcVerdict | null; revealed: boolean }) {
  if (verdict) {
    return (
      <Text bold color={verdict.correct ? 'green' : 'red'}>
        {verdict.verdict}
      </Text>
    );
  }
  // Shown without a check (Space): nothing typed to judge.
  return revealed ? null : <QuizInput value={typed} unit={unit} />;
}
