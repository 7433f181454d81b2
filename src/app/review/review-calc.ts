// Calc cards in kb review and kb due. A calc card's values are drawn once per study day,
// seeded by its id and the day, so kb due lists the numbers kb review asks, and a card seen
// again the same day (a learning step) asks the same sum. The drawing, the typed-number
// parsing and the check are kb quiz's own (quiz-session.ts, quiz-units.ts, kb/calc.ts).
import { checkCalcAnswer, renderTemplate } from '../../kb/calc.ts';
import { seededRandom } from '../../kb/seeded-random.ts';
import type { CardRow } from '../../store/card-rows.ts';
import { hashText } from '../../store/shuffle-key.ts';
import { calcVerdict, drawQuestion, solutionText, type QuizQuestion } from '../quiz/quiz-session.ts';
import { parseTypedAnswer } from '../quiz/quiz-units.ts';
import type { Grade } from '../../model/fsrs-state.ts';

type CalcCard = Pick<CardRow, 'id' | 'kind' | 'path' | 'line' | 'deck' | 'front' | 'back' | 'full' | 'tags' | 'lab' | 'calc'>;

/** The card's question for study day `day` (local 'YYYY-MM-DD'); null for a text card. */
export function dailyCalc(card: CalcCard, day: string): QuizQuestion | null {
  if (card.calc === null) return null;
  return drawQuestion(card, 0, seededRandom(hashText(`${card.id}@${day}`)));
}

/** The card's three faces with the day's values in place: the question, the worked answer, the whole card. */
export function calcFaces(card: CalcCard, question: QuizQuestion): { front: string; back: string; full: string } {
  const spec = card.calc;
  if (spec === null || question.values === null) return card;
  return { front: question.prompt, back: solutionText(question), full: renderTemplate(card.full, question.values, spec) };
}

/** The question as kb review asks it on study day `day`: a calc card's with its values in place. */
export function dailyFront(card: CalcCard, day: string): string {
  return dailyCalc(card, day)?.prompt ?? card.front;
}

export type CalcCheck =
  | { kind: 'retry'; message: string }
  | {
      kind: 'checked';
      correct: boolean;
      /** "✓ Right: 20ms = 20 ms" or "✗ Wrong: you typed 25 = 25 ms; the answer is 20 ms". */
      verdict: string;
      /** The rating the check suggests: Good when right, Again when wrong (the learner may choose another). */
      suggested: Grade;
    };

/** Checks a typed answer as kb quiz does; a number kb cannot read, or a unit of the wrong kind, asks again. */
export function checkTyped(question: QuizQuestion, typed: string): CalcCheck {
  const spec = question.card.calc;
  if (spec === null || question.values === null) throw new Error('not a calculation card');
  const parsed = parseTypedAnswer(typed, spec.unit);
  if (!parsed.ok) return { kind: 'retry', message: parsed.message };
  const correct = checkCalcAnswer(spec, question.values, parsed.value);
  return { kind: 'checked', correct, verdict: calcVerdict(question, typed.trim(), parsed.value, correct), suggested: correct ? 3 : 1 };
}
