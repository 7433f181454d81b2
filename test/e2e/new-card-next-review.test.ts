// A note never reviewed whose frontmatter's next_review is a later day is a new card due on that
// day (README: "a new card due on next_review"): it was introduced today all the same, among
// the day's new cards (found as a user adopting a vault of postponed notes).
import { describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';

const note = (title: string, nextReview: string) => `---\nlast_reviewed: null\nnext_review: '${nextReview}'\nreview_count: 0\n---\n# ${title}\n\n## Answer\n\nAn answer.\n`;

describe('a new note postponed by its next_review', () => {
  it('waits for that day: not in today\'s queue or counts, listed with its date', () => {
    const root = writeKb({ 'kb.json': '{}\n', 'notes/later.md': note('Postponed?', '2099-01-05'), 'notes/now.md': note('Due already?', '2020-01-05') });
    const due = JSON.parse(runKb(['--kb', root, 'due', '--json']).stdout) as { counts: { new: number }; cards: Array<{ front: string; due: string | null }> };
    expect(due.cards.map((card) => card.front)).toEqual(['Due already?']);
    expect(due.counts.new).toBe(1);
    const cards = JSON.parse(runKb(['--kb', root, 'cards', '--json']).stdout) as Array<{ question: string; state: string; due: string | null }>;
    expect(cards.map(({ question, state, due: when }) => [question, state, when === null ? null : when.slice(0, 4)])).toEqual([
      ['Postponed?', 'new', '2099'],
      ['Due already?', 'new', null],
    ]);
  });
});
