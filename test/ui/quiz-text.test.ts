import { describe, expect, it } from 'vitest';
import { editLine } from '../../src/ui/quiz/AnswerInput.tsx';
import { quizSummaryLine, secondsLeft } from '../../src/ui/quiz/quiz-text.ts';

const plain = { return: false, backspace: false, delete: false, ctrl: false, meta: false, tab: false };

describe('quiz text', () => {
  it('prints a one-line summary with the weakest tags', () => {
    expect(quizSummaryLine({ asked: 3, correct: 2, score: 2 / 3, elapsedMs: 65_000, weakestTags: [{ tag: 'metrics', asked: 3, correct: 2 }] })).toBe(
      'Quiz: 2/3 right (67%) in 1m 05s; weakest: metrics 2/3',
    );
    expect(quizSummaryLine({ asked: 0, correct: 0, score: 0, elapsedMs: 0, weakestTags: [] })).toBe('Quiz: nothing answered in 0s');
  });

  it('rounds the countdown up', () => {
    expect([45_000, 44_001, 1, 0, -5].map(secondsLeft)).toEqual([45, 45, 1, 0, 0]);
  });

  it('edits the answer line key by key or chunk by chunk', () => {
    expect(editLine('2', '0', plain)).toEqual({ line: '20', submit: false });
    expect(editLine('20', '', { ...plain, backspace: true })).toEqual({ line: '2', submit: false });
    expect(editLine('20', '', { ...plain, return: true })).toEqual({ line: '20', submit: true });
    expect(editLine('', '20 GB\x7f\x7fms\rjunk', plain)).toEqual({ line: '20 ms', submit: true });
    expect(editLine('20', 'c', { ...plain, ctrl: true })).toEqual({ line: '20', submit: false });
  });
});
