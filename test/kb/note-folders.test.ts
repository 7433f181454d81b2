// Which paths are notes, decks and labs under kb.json's notesFolders (issue #13, item 10).
import { describe, expect, it } from 'vitest';
import { foldersToWalk, notesFolderOf, sourceKind } from '../../src/kb/note-folders.ts';
import { noteDeck } from '../../src/kb/note.ts';
import { parseKnowledgeFile, parseLocated } from '../../src/kb/parse-file.ts';
import { insertMissingIds } from '../../src/kb/id-insert.ts';

describe('notes folders', () => {
  it('classifies paths: cards/ and lab/ are always kb\'s, notes only inside a notes folder', () => {
    expect(['notes/a.md', 'cards/d.md', 'lab/x.md', 'a.md', 'top/a.md', 'notes/a.txt'].map((p) => sourceKind(p))).toEqual(['note', 'cards', 'lab', null, null, null]);
    expect(['notes/a.md', 'cards/d.md', 'lab/x.md', 'a.md', 'top/a.md'].map((p) => sourceKind(p, ['.']))).toEqual(['note', 'cards', 'lab', 'note', 'note']);
    expect(['z/a.md', 'j/1/a.md', 'notes/a.md'].map((p) => sourceKind(p, ['./z/', 'j']))).toEqual(['note', 'note', null]);
    expect(notesFolderOf('j/1/a.md', ['.', 'j'])).toBe('j');
  });

  it('walks each folder once: `.` covers all, and a folder inside another is not walked again', () => {
    expect(foldersToWalk(['notes'])).toEqual(['cards', 'lab', 'notes']);
    expect(foldersToWalk(['.', 'notes'])).toEqual(['.']);
    expect(foldersToWalk(['notes', 'notes/sub', 'cards/x'])).toEqual(['cards', 'lab', 'notes']);
  });

  it('names a note\'s deck by its folder below the notes folder', () => {
    expect(noteDeck('notes/a.md')).toBe('notes');
    expect(noteDeck('notes/metrics/a.md')).toBe('metrics');
    expect(noteDeck('a.md', '.')).toBe('notes');
    expect(noteDeck('topic/sub/a.md', '.')).toBe('topic/sub');
    expect(noteDeck('Zettel/a.md', 'Zettel')).toBe('notes');
    expect(parseKnowledgeFile('topic/a.md', '# Q\n\nA\n').cards).toEqual([]);
    expect(parseLocated('topic/a.md', '# Q\n\nA\n', ['.']).parsed.cards[0]).toMatchObject({ front: 'Q', back: 'A', deck: 'topic' });
  });

  it('writes a missing id into a note outside notes/', () => {
    const text = '# Q\n\nA\n';
    const result = insertMissingIds(text, parseLocated('Top.md', text, ['.']));
    expect(result.inserted).toHaveLength(1);
    expect(result.text).toBe(`---\nid: ${result.inserted[0].id}\n---\n# Q\n\nA\n`);
  });
});
