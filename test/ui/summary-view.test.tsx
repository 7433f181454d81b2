// The end-of-session box (found as a user at 40 and 200 columns): at 40 its tally wrapped with
// a space at the start of a row (" Time: 5s", issue #13 item 7a); at 200 it was drawn 200
// columns wide around lines of 40.
import { renderToString } from 'ink';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { SummaryView } from '../../src/ui/review/SummaryView.tsx';
import { QuizEnd } from '../../src/ui/quiz/QuizEnd.tsx';

const summary = { cards: 12, again: 3, elapsedMs: 65_000, laterToday: 0, stillDue: { learning: 0, review: 0, new: 0 }, tomorrow: 7 };
const rows = (columns: number) => renderToString(<SummaryView summary={summary} waitingUntil={null} width={columns - 1} />, { columns }).split('\n');

describe('the session summary box', () => {
  it('breaks its tally between figures on a phone\'s 40 columns, each row starting at the text', () => {
    const lines = rows(40);
    expect(lines.every((line) => line.length <= 39)).toBe(true);
    const inside = lines.slice(1, -1).map((line) => line.slice(2, -1).trimEnd());
    expect(inside).toEqual(['Done for today.', 'Cards reviewed: 12   Again: 25% (3)', 'Time: 1m 05s', 'Tomorrow: 7 cards due', 'u undo · q quit']);
  });

  it('does not say "Done for today." when a --limit run ends with cards still due (found as a user: kb review --limit 1)', () => {
    const limited = { ...summary, stillDue: { learning: 0, review: 1, new: 2 } };
    const text = renderToString(<SummaryView summary={limited} waitingUntil={null} width={79} />, { columns: 80 });
    expect(text).not.toContain('Done for today.');
    expect(text).toContain('Done with this run.');
    expect(text).toContain('Still due now: 1 review, 2 new (kb review for more)');
  });

  it('is as wide as its lines on a wide terminal', () => {
    const lines = rows(200);
    expect(lines[0]!.length).toBe('Cards reviewed: 12   Again: 25% (3)   Time: 1m 05s'.length + 4);
  });
});

describe('the quiz end box', () => {
  it('is as wide as its lines, and breaks score and time apart at 30 columns', () => {
    const quiz = { asked: 10, correct: 7, score: 0.7, elapsedMs: 125_000, weakestTags: [{ tag: 'metrics', correct: 1, asked: 3 }] };
    const wide = renderToString(<QuizEnd summary={quiz} total={10} width={199} />, { columns: 200 }).split('\n');
    expect(wide[0]!.length).toBe('Score: 7/10 (70%)   Time: 2m 05s'.length + 4);
    const narrow = renderToString(<QuizEnd summary={quiz} total={10} width={29} />, { columns: 30 }).split('\n');
    expect(narrow.slice(1, -1).map((line) => line.slice(2, -1).trimEnd())).toEqual(['Quiz done.', 'Score: 7/10 (70%)', 'Time: 2m 05s', 'Weakest tags: metrics 1/3', 'Enter or q to leave']);
  });

  it('gives no score when nothing was answered ("0/0 (0%)" read as a failed quiz)', () => {
    const none = { asked: 0, correct: 0, score: 0, elapsedMs: 3_000, weakestTags: [] };
    const text = renderToString(<QuizEnd summary={none} total={5} width={79} />, { columns: 80 });
    expect(text).toContain('Score: -');
    expect(text).not.toContain('0/0');
  });

  it('keeps each long tag (English or Chinese) on one line with its score at 80 columns (a score wrapped onto the next line, found as a user)', () => {
    const weakestTags = [
      { tag: 'continuous-batching-with-chunked-prefill-and-preemption-and-prefix-caching-policies', correct: 0, asked: 1 },
      { tag: 'kv-cache-paged-attention-block-tables', correct: 1, asked: 12 },
      { tag: '连续批处理与分块预填充的调度策略以及前缀缓存和抢占恢复机制的详细比较与取舍', correct: 2, asked: 3 },
    ];
    const quiz = { asked: 16, correct: 3, score: 3 / 16, elapsedMs: 9_000, weakestTags };
    const lines = renderToString(<QuizEnd summary={quiz} total={16} width={79} />, { columns: 80 }).split('\n');
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(79);
    const inside = lines.slice(1, -1).map((line) => line.slice(2, -1).trimEnd());
    expect(inside[2]).toBe('Weakest tags:');
    expect(inside.slice(3, 6)).toEqual([
      expect.stringMatching(/^ {2}continuous-batching-with-chunked-prefill-.*… +0\/1$/),
      expect.stringMatching(/^ {2}kv-cache-paged-attention-block-tables +1\/12$/),
      expect.stringMatching(/^ {2}连续批处理与分块预填充的调度策略.*… +2\/3$/),
    ]);
    // The scores in one column.
    expect(new Set(inside.slice(3, 6).map((row) => stringWidth(row)))).toEqual(new Set([stringWidth(inside[3]!)]));
    expect(inside[6]).toBe('Enter or q to leave');
  });
});
