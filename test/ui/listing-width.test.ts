// kb due and kb cards in a terminal: a line never reaches the terminal's last column, with
// Chinese deck names and questions too (their characters take two cells). Measured by string
// length, a Chinese deck let the question run two cells over, and its "…" wrapped onto a line
// of its own at 80 columns; a long lab name beside a full deck column ran a line four cells past 80.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { formatDue, type DueEntry } from '../../src/ui/text/due-list.ts';
import { formatCardTable, type CardEntry } from '../../src/ui/text/card-table.ts';

const NOW = Date.UTC(2026, 10, 26, 12);
const LONG_ZH = '在高并发场景下，为什么首个令牌延迟（TTFT）的 p99 会远高于 p50，排队等待和预填充各占多少？';
const decks = ['推理', '推理优化技巧与实践经验总结', 'metrics', 'kv-cache'];
const questions = [LONG_ZH, 'What problem does PagedAttention solve, and how much memory does it save in practice?', '连续批处理为什么能提高吞吐？'];

const dueEntries: DueEntry[] = decks.flatMap((deck, d) =>
  questions.map((front, q) => ({ id: `c${d}${q}abcdefghij`, queue: 'new' as const, due: new Date(NOW).toISOString(), deck, front, lab: q === 1 ? 'chunked-prefill' : q === 2 ? 'batching' : null })),
);
const cardEntries: CardEntry[] = dueEntries.map((entry) => ({
  id: entry.id, question: entry.front, deck: entry.deck, state: 'review', due: new Date(NOW + 86_400_000).toISOString(),
  stability: 12.3, difficulty: 5.1, reps: 4, lapses: 1, suspended: false, buried: false, leech: false,
}));

describe('listing widths', () => {
  for (const columns of [80, 100, 200]) {
    it(`kb due and kb cards stay within ${columns - 1} cells at ${columns} columns`, () => {
      for (const text of [formatDue({ learning: 0, review: 0, new: dueEntries.length, later: 0 }, dueEntries, NOW, columns), formatCardTable(cardEntries, NOW, columns)]) {
        const lines = text.trimEnd().split('\n');
        for (const line of lines) expect(stringWidth(line), line).toBeLessThan(columns);
        // The long questions are cut, not dropped: each card line ends in its question's start or an ellipsis.
        expect(lines.filter((line) => line.includes('在高并发')).length).toBe(decks.length);
      }
    });
  }

  it('kb cards drops lapses, difficulty and stability (in that order) on a narrow terminal, so the question keeps its room', () => {
    const header = (columns: number) => formatCardTable(cardEntries, NOW, columns).split('\n')[0].split(/\s+/);
    expect(header(200)).toEqual(['id', 'state', 'due', 'stab', 'diff', 'reps', 'lapses', 'deck', 'question']);
    expect(header(80)).toEqual(['id', 'state', 'due', 'reps', 'deck', 'question']);
    // The question keeps at least 20 cells at 80 columns.
    for (const line of formatCardTable(cardEntries, NOW, 80).split('\n').filter((l) => l.includes('在高并发'))) {
      expect(stringWidth(line.slice(line.indexOf('在高并发')))).toBeGreaterThanOrEqual(20);
    }
  });

  it('kb cards gives short questions\' unused room to the deck (found as a user: "metri…" beside "What is ITL?")', () => {
    const short = (deck: string, question: string): CardEntry => ({ ...cardEntries[0], id: `${deck.length}`.padEnd(12, 'x'), deck, question, state: 'learning' });
    // 78 columns: room for the whole deck beside these questions, not beside the 24 cells kept for any question.
    const table = formatCardTable([short('metrics', 'What is ITL?'), short('调度/批处理', 'Why page the KV cache?')], NOW, 78);
    expect(table).toContain('metrics');
    expect(table).toContain('调度/批处理');
    expect(table).toContain('Why page the KV cache?');
    for (const line of table.trimEnd().split('\n')) expect(stringWidth(line)).toBeLessThan(78);
  });

  it('kb due says a review due later in the study day is due today, not "in 19.7h" under "Due now" (found as a user)', () => {
    const review: DueEntry = { id: 'rrrrrrrrrrrr', queue: 'review', due: new Date(NOW + 5 * 3_600_000).toISOString(), deck: 'metrics', front: 'Q?', lab: null };
    const learning: DueEntry = { ...review, id: 'llllllllllll', queue: 'later', due: new Date(NOW + 600_000).toISOString() };
    const text = formatDue({ learning: 0, review: 1, new: 0, later: 1 }, [review, learning], NOW, 100);
    expect(text).toMatch(/^rrrrrrrrrrrr {2}review {2}today /m);
    expect(text).toMatch(/^llllllllllll {2}later {3}in 10m /m);
  });

  it("kb cards gives the study day a card is due, as its note's next_review writes it, not the calendar date of its due time (found following the README)", () => {
    // Rated at 03:40 local for a day: due at 03:40 the next day, before a 04:00 day start, so in
    // the study day of the 27th (next_review: 2026-11-27; kb due lists it that day), not the 28th.
    const now = new Date(2026, 10, 27, 10, 0).getTime();
    const entry: CardEntry = { ...cardEntries[0], due: new Date(2026, 10, 28, 3, 40).toISOString() };
    const later: CardEntry = { ...cardEntries[0], id: 'dddddddddddd', due: new Date(2026, 10, 30, 9, 0).toISOString() };
    const table = formatCardTable([entry, later], now, 200, '04:00');
    expect(table).toMatch(new RegExp(`^${entry.id} +review +2026-11-27 `, 'm'));
    expect(table).toMatch(/^dddddddddddd +review +2026-11-30 /m);
    expect(formatCardTable([{ ...entry, due: new Date(now - 1).toISOString() }], now, 200, '04:00')).toMatch(/ review +now /);
  });

  it('kb cards shows a long deck whole where the question keeps its room (found as a user: cut to 16 at 200 columns)', () => {
    const deck = 'Inference/Deep Learning Systems';
    const entries = cardEntries.map((entry) => ({ ...entry, deck }));
    expect(formatCardTable(entries, NOW, 200)).toContain(deck);
    const narrow = formatCardTable(entries, NOW, 80);
    expect(narrow).not.toContain(deck);
    for (const line of narrow.trimEnd().split('\n')) expect(stringWidth(line)).toBeLessThan(80);
  });

  it('kb due on a phone\'s 40 columns: the deck gives way so the question keeps room, every line within 39 cells', () => {
    const text = formatDue({ learning: 0, review: 0, new: dueEntries.length, later: 0 }, dueEntries, NOW, 40);
    const lines = text.trimEnd().split('\n');
    for (const line of lines.slice(1)) {
      expect(stringWidth(line), line).toBeLessThan(40);
      expect(line).not.toContain('推理优化');
    }
    expect(lines[1]).toMatch(/^c00abcdefghij {2}new {4}now {2}在高并发/);
  });
});
