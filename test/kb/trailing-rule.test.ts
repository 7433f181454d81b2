// A thematic break that separates an answer from the next section (or a deck card from the next)
// is not part of the answer: it drew a second, empty rule under it (found as a user on notes in
// the seed's format, which close with "---" before their related notes).
import { describe, expect, it } from 'vitest';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';

describe('a rule after an answer', () => {
  it('is left out of a note\'s answer section and of a deck card\'s answer', () => {
    const note = parseKnowledgeFile('notes/a.md', '---\nid: abcdefgh2345\n---\n# Q\n\n## 总结\n\n**KV Cache 是权衡。**\n\n---\n\n## 相关笔记\n\n- x\n');
    expect(note.cards[0].back).toBe('**KV Cache 是权衡。**');
    const deck = parseKnowledgeFile('cards/d.md', '## One?\n\nA.\n\n* * *\n\n## Two?\n\nB.\n\n___\n');
    expect(deck.cards.map((card) => card.back)).toEqual(['A.', 'B.']);
  });

  it('keeps a rule inside the answer, and text that --- underlines', () => {
    const deck = parseKnowledgeFile('cards/d.md', '## One?\n\nA.\n\n---\n\nMore after the rule.\n');
    expect(deck.cards[0].back).toBe('A.\n\n---\n\nMore after the rule.');
  });
});
