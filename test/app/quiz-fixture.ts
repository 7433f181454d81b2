// Quiz cards for the tests: a text card and the seed-004 TPOT calc card with fixed values.
import { parseCalc } from '../../src/kb/calc.ts';
import type { CalcSpec } from '../../src/model/knowledge-base.ts';
import type { QuizCard } from '../../src/app/quiz/quiz-session.ts';

export function calcSpec(source: string): CalcSpec {
  const parsed = parseCalc(source, 1, 'cards/test.md');
  if (!parsed.spec) throw new Error(parsed.diagnostics.map((d) => d.message).join('\n'));
  return parsed.spec;
}

export const TPOT_SPEC = `vars:
  ttft: { choose: [0.5] }
  n: { choose: [100] }
  total: { choose: [2.5] }
answer: (total - ttft) / n * 1000
unit: ms
tolerance: 1%
explain: TPOT = ({total} - {ttft}) / {n} s = {answer} ms
`;

export function quizCard(id: string, overrides: Partial<QuizCard> = {}): QuizCard {
  return {
    id,
    kind: 'card',
    path: 'cards/test.md',
    line: 3,
    deck: 'test',
    front: `Question ${id}?`,
    back: `Answer ${id}.`,
    tags: ['metrics'],
    lab: null,
    calc: null,
    ...overrides,
  };
}

export function tpotCard(id = 'tpot'): QuizCard {
  return quizCard(id, {
    front: 'TTFT {ttft} s, {n} tokens, {total} s in all. TPOT?',
    back: '',
    calc: calcSpec(TPOT_SPEC),
  });
}
