import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runKb, runKbAtTerminal, tempDir, writeKb } from '../helpers/kb-cli.ts';
import { cardIdOf, reviewKb } from './review-fixture.ts';

describe('kb stats', () => {
  it('reports counts, forecast, history and memory as JSON and as charts', () => {
    const kb = reviewKb();
    expect(runKb(['--kb', kb.root, 'rate', cardIdOf(kb.ttftPath), 'easy']).code).toBe(0);
    const json = JSON.parse(runKb(['--kb', kb.root, 'stats', '--json']).stdout);
    expect(json.counts).toMatchObject({ new: 1, review: 1, total: 2 });
    expect(json.forecast).toHaveLength(30);
    expect(json.forecast.reduce((sum: number, day: { count: number }) => sum + day.count, 0)).toBe(1);
    expect(json.reviewsPerDay).toHaveLength(84);
    expect(json.reviewsPerDay.at(-1).count + json.reviewsPerDay.at(-2).count).toBeGreaterThanOrEqual(1);
    expect(json.retention).toHaveLength(12);
    expect(json.stability.reduce((sum: number, b: { count: number }) => sum + b.count, 0)).toBe(1);

    const text = runKb(['--kb', kb.root, 'stats']);
    expect(text.code).toBe(0);
    for (const title of ['Due in the next 30 days', 'Reviews per day, last 12 weeks', 'True retention per week', 'Cards by state', 'Stability', 'Difficulty']) {
      expect(text.stdout).toContain(title);
    }
    expect(text.stdout).toMatch(/█/);
  });

  it('counts a buried card on the day it comes back, as kb due does, not among today\'s (found as a user: 4 due today, kb due said 3)', () => {
    const root = writeKb({ 'kb.json': '{}\n', 'cards/deck.md': '## One?\n\nA.\n\n## Two?\n\nB.\n' });
    expect(runKb(['--kb', root, 'scan']).code).toBe(0);
    const [buried, due] = (JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ id: string }>).map((card) => card.id);
    // Both learned ten days ago (Good, then Good past the 10m step: due two days later, overdue
    // now); the first buried from the review screen a minute ago, as its log says.
    const now = Date.now();
    const start = now - 10 * 86_400_000;
    const day = (at: number) => new Date(at - 4 * 3_600_000).toLocaleDateString('sv');
    const events = [
      ...[buried, due].flatMap((card) => [
        { card, at: start, kind: 'rate', rating: 3 },
        { card, at: start + 15 * 60_000, kind: 'rate', rating: 3 },
      ]),
      { card: buried, at: now - 60_000, kind: 'bury' },
    ];
    mkdirSync(join(root, 'reviews'), { recursive: true });
    writeFileSync(join(root, 'reviews/other.jsonl'), events.map((event, n) => `${JSON.stringify({ id: `other-${n}`, device: 'other', n, ...event, day: day(event.at) })}\n`).join(''));
    const queue = JSON.parse(runKb(['--kb', root, 'due', '--json']).stdout) as { cards: Array<{ id: string }> };
    expect(queue.cards.map((card) => card.id)).toEqual([due]);
    const stats = JSON.parse(runKb(['--kb', root, 'stats', '--json']).stdout) as { counts: { buried: number }; forecast: Array<{ count: number }> };
    expect(stats.counts.buried).toBe(1);
    expect(stats.forecast[0].count).toBe(1);
    expect(stats.forecast[1].count).toBe(1);
  });

  it('on a terminal, draws its charts without colours under NO_COLOR, bold titles kept (found as a power user: chalk, under Ink, does not read NO_COLOR)', () => {
    const kb = reviewKb();
    expect(runKb(['--kb', kb.root, 'rate', cardIdOf(kb.ttftPath), 'easy']).code).toBe(0);
    // An SGR sequence that sets a foreground or background colour (30-49, 90-107, 38;5;n, ...).
    const colour = /\x1b\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9;]*)?m/;
    const coloured = runKbAtTerminal(['--kb', kb.root, 'stats'], { env: { NO_COLOR: undefined, TERM: 'xterm-256color' } });
    expect(coloured.stdout).toMatch(colour);
    for (const value of ['1', 'yes']) {
      const plain = runKbAtTerminal(['--kb', kb.root, 'stats'], { env: { NO_COLOR: value, TERM: 'xterm-256color' } });
      expect(plain.code).toBe(0);
      expect(plain.stdout).toContain('█');
      expect(plain.stdout).not.toMatch(colour);
      expect(plain.stdout).toContain('\x1b[1mDue in the next 30 days');
    }
  });

  it('says there is nothing to chart on a fresh knowledge base, not a chart with "0" at both ends of its scale (found as a user)', () => {
    const root = join(tempDir(), 'kb');
    expect(runKb(['init', '--empty', root]).code).toBe(0);
    const empty = runKb(['--kb', root, 'stats']);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('Nothing to chart yet: no cards. Add one: kb add "Question?" --answer "Answer."');
    expect(empty.stdout).not.toMatch(/^\s*0 │/m);
    // A note, never reviewed: new cards are not in the forecast until their first review.
    writeFileSync(join(root, 'notes/ttft.md'), '# What is TTFT?\n\nTime to first token.\n');
    const unreviewed = runKb(['--kb', root, 'stats']);
    expect(unreviewed.stdout).toContain('Cards by state (1 in all)');
    expect(unreviewed.stdout).toContain('Nothing to chart yet: cards are scheduled by their first review (kb review).');
    expect(unreviewed.stdout).not.toMatch(/^\s*0 │/m);
  });
});
