import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/kb/seeded-random.ts';
import type { CalcSpec } from '../../src/model/knowledge-base.ts';
import {
  answerCalc,
  createQuizSession,
  currentQuestion,
  expectedLabel,
  gradeText,
  isFinished,
  quizSummary,
  solutionText,
  timeOut,
  type QuizCard,
} from '../../src/app/quiz/quiz-session.ts';
import { quizCard, tpotCard } from './quiz-fixture.ts';

function start(cards: QuizCard[], timeLimitMs: number | null = null) {
  return createQuizSession(cards, { id: 's', seed: 1, startedAt: 1000, timeLimitMs }, seededRandom(1));
}

describe('quiz session', () => {
  it('asks in order, scores, and names the weakest tags', () => {
    let s = start([
      tpotCard('a'),
      quizCard('b', { tags: ['kv-cache'] }),
      quizCard('c', { tags: ['kv-cache', 'metrics'] }),
      quizCard('d', { tags: [], deck: 'serving' }),
    ]);
    expect(currentQuestion(s)?.card.id).toBe('a');
    const attempt = answerCalc(s, '20ms', { askedAt: 1000, answeredAt: 4000 });
    if (attempt.kind !== 'answered') throw new Error('not answered');
    s = attempt.session;
    expect(attempt.answer).toEqual({ index: 0, cardId: 'a', askedAt: 1000, durationMs: 3000, typed: '20ms', value: 20, expected: 20, correct: true, timedOut: false });
    s = gradeText(s, false, { askedAt: 4000, answeredAt: 5000 }).session;
    s = gradeText(s, true, { askedAt: 5000, answeredAt: 6000 }).session;
    s = gradeText(s, false, { askedAt: 6000, answeredAt: 7000 }).session;
    expect(isFinished(s)).toBe(true);
    expect(currentQuestion(s)).toBeNull();
    const summary = quizSummary(s, 11_000);
    expect(summary).toMatchObject({ asked: 4, correct: 2, score: 0.5, elapsedMs: 10_000 });
    // A card without tags counts under its deck; metrics is 2/2, so not weak.
    expect(summary.weakestTags).toEqual([
      { tag: 'serving', asked: 1, correct: 0 },
      { tag: 'kv-cache', asked: 2, correct: 1 },
    ]);
  });

  it('counts an answer after the time limit as wrong, and a countdown at zero as wrong', () => {
    let s = start([tpotCard('a'), quizCard('b'), quizCard('c')], 45_000);
    const late = answerCalc(s, '20', { askedAt: 0, answeredAt: 45_001 });
    if (late.kind !== 'answered') throw new Error('not answered');
    expect(late.answer).toMatchObject({ correct: false, timedOut: true, value: 20 });
    s = late.session;
    const expired = timeOut(s, { askedAt: 0, answeredAt: 45_000 });
    expect(expired.answer).toMatchObject({ cardId: 'b', correct: false, timedOut: true, typed: null });
    s = expired.session;
    expect(gradeText(s, true, { askedAt: 0, answeredAt: 45_000 }).answer).toMatchObject({ correct: true, timedOut: false });
  });

  it('shows the expected answer with its unit and the worked solution with the values', () => {
    const s = start([tpotCard('a'), quizCard('b')]);
    expect(expectedLabel(s.questions[0])).toBe('20 ms');
    expect(solutionText(s.questions[0])).toBe('TPOT = (2.5 - 0.5) / 100 s = 20 ms');
    expect(expectedLabel(s.questions[1])).toBeNull();
    expect(solutionText(s.questions[1])).toBe('Answer b.');
  });

  it('redraws values whose answer is not finite, and leaves out a card that never gives one', () => {
    const reciprocal = (values: number[]): CalcSpec => ({
      vars: [{ name: 'x', kind: 'choose', values }],
      answer: '1 / x',
      unit: null,
      tolerance: { kind: 'abs', value: 0 },
      explain: null,
      line: 1,
    });
    for (let seed = 1; seed <= 20; seed++) {
      const s = createQuizSession([quizCard('a', { calc: reciprocal([0, 4]) })], { id: 's', seed, startedAt: 0, timeLimitMs: null }, seededRandom(seed));
      expect(s.questions[0].expected).toBe(0.25);
    }
    const none = start([quizCard('a', { calc: reciprocal([0]) }), quizCard('b')]);
    expect(none.questions.map((q) => [q.index, q.card.id])).toEqual([[0, 'b']]);
  });

  it('refuses to take a typed number for a text card', () => {
    expect(() => answerCalc(start([quizCard('b')]), '1', { askedAt: 0, answeredAt: 1 })).toThrow(/not a calculation/);
  });
});
