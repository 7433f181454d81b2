import stringWidth from 'string-width';
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

  it('breaks a summary wider than the terminal between its tags, each beside its score (at 80 columns a score was wrapped apart)', () => {
    const weakestTags = [
      { tag: 'continuous-batching-with-chunked-prefill-and-preemption-and-prefix-caching-policies', asked: 1, correct: 0 },
      { tag: 'kv-cache-paged-attention-block-tables', asked: 12, correct: 1 },
      { tag: '连续批处理与分块预填充的调度策略以及前缀缓存和抢占恢复机制的详细比较与取舍', asked: 3, correct: 2 },
    ];
    const lines = quizSummaryLine({ asked: 16, correct: 3, score: 3 / 16, elapsedMs: 9_000, weakestTags }, 79).split('\n');
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(79);
    expect(lines).toEqual([
      'Quiz: 3/16 right (19%) in 9s; weakest:',
      expect.stringMatching(/^ {6}continuous-batching-with-chunked-prefill-.*… 0\/1,$/),
      '      kv-cache-paged-attention-block-tables 1/12,',
      expect.stringMatching(/^ {6}连续批处理与分块预填充的调度策略.*… 2\/3$/),
    ]);
    // What fits stays one line.
    expect(quizSummaryLine({ asked: 3, correct: 2, score: 2 / 3, elapsedMs: 65_000, weakestTags: [{ tag: 'metrics', asked: 3, correct: 2 }] }, 79)).toBe(
      'Quiz: 2/3 right (67%) in 1m 05s; weakest: metrics 2/3',
    );
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
