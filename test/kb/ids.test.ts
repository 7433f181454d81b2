import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insertMissingIds } from '../../src/kb/id-insert.ts';
import { newCardId } from '../../src/kb/card-identity.ts';
import { locateFrontmatter } from '../../src/kb/frontmatter.ts';
import { parseKnowledgeFile } from '../../src/kb/parse-file.ts';
import { SEED_STYLE_NOTE, TPOT_CARDS } from './parse-fixtures.ts';

function insert(path: string, text: string) {
  return insertMissingIds(text, parseKnowledgeFile(path, text));
}

describe('newCardId', () => {
  it('is 12 url-safe characters starting with a letter, and unique', () => {
    const ids = new Set(Array.from({ length: 2000 }, newCardId));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z2-7]{11}$/);
  });
});

describe('insertMissingIds in notes', () => {
  it('appends id: at the end of the frontmatter and changes nothing else', () => {
    const result = insert('notes/a.md', SEED_STYLE_NOTE);
    expect(result.inserted).toHaveLength(1);
    const { id, line } = result.inserted[0];
    expect(line).toBe(1);
    expect(result.text).toBe(SEED_STYLE_NOTE.replace('related_outlines: []\n---\n', `related_outlines: []\nid: ${id}\n---\n`));
    const before = parseKnowledgeFile('notes/a.md', SEED_STYLE_NOTE).cards[0];
    const idLine = result.text.split('\n').indexOf(`id: ${id}`) + 1;
    expect(result.parsed.cards[0]).toEqual({ ...before, id, idLine });
  });

  it('keeps CRLF and the BOM', () => {
    const text = '\uFEFF' + SEED_STYLE_NOTE.replace(/\n/g, '\r\n');
    const result = insert('notes/a.md', text);
    const id = result.inserted[0].id;
    expect(result.text).toBe(text.replace('related_outlines: []\r\n---\r\n', `related_outlines: []\r\nid: ${id}\r\n---\r\n`));
  });

  it('gives a note without frontmatter a minimal block', () => {
    const result = insert('notes/a.md', '# Q\r\n\r\nA\r\n');
    expect(result.text).toBe(`---\r\nid: ${result.inserted[0].id}\r\n---\r\n# Q\r\n\r\nA\r\n`);
  });

  it('leaves an empty file, an unclosed frontmatter and a lone-CR file as they are (they are no cards)', () => {
    for (const text of ['', '---\ntags: [a]\n# Q\n', '---\rtags: [a]\r---\r# Q\r']) {
      expect(insert('notes/odd.md', text)).toMatchObject({ text, inserted: [] });
    }
  });

  it('fills an empty id: in place', () => {
    const result = insert('notes/a.md', '---\nid:\ntags: [a]\n---\n# Q\n');
    expect(result.text).toBe(`---\nid: ${result.inserted[0].id}\ntags: [a]\n---\n# Q\n`);
  });

  it('leaves a note that has an id alone', () => {
    const text = '---\nid: abcdefgh2345\n---\n# Q\n';
    expect(insert('notes/a.md', text)).toMatchObject({ text, inserted: [] });
  });
});

describe('insertMissingIds in notes: property', () => {
  it('adds exactly one id line and keeps the card', () => {
    const fmLine = fc.constantFrom('tags: [a, b]', "created: '2025-10-19'", 'difficulty: medium  # why', 'related_outlines: []', '# a comment', 'id:', 'title: "T"');
    const bodyLine = fc.constantFrom('# Title', '## Answer', 'text', '', '```', '---', 'id: not frontmatter');
    fc.assert(fc.property(fc.option(fc.uniqueArray(fmLine, { maxLength: 5 })), fc.array(bodyLine, { maxLength: 8 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), (fm, body, eol, bom) => {
      const text = (bom ? '\uFEFF' : '') + (fm === null ? '' : ['---', ...fm, '---', ''].join(eol)) + body.join(eol);
      const before = parseKnowledgeFile('notes/p.md', text);
      fc.pre(before.cards.length === 1);
      const result = insertMissingIds(text, before);
      const id = result.inserted[0].id;
      const block = locateFrontmatter(text);
      const emptyId = block !== null && /^id:[ \t]*$/m.test(text.slice(block.yamlStart, block.yamlEnd));
      const restored = block === null
        ? result.text.replace(text.includes('\n') ? `---${eol}id: ${id}${eol}---${eol}` : `---\nid: ${id}\n---\n`, '')
        : result.text.replace(emptyId ? `id: ${id}` : `id: ${id}${block.eol}`, emptyId ? 'id:' : '');
      expect(restored).toBe(text);
      // The card's id line is the line that now holds its id, however the id went in.
      const { idLine } = result.parsed.cards[0];
      expect(result.parsed.cards[0]).toEqual({ ...before.cards[0], id, idLine });
      expect(result.text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)[idLine! - 1]).toMatch(new RegExp(`^id: ${id}\\s*$`));
    }), { numRuns: 300 });
  });
});

describe('insertMissingIds in cards files', () => {
  it('inserts a comment line under each heading without an id', () => {
    const text = TPOT_CARDS.replace('## What does TTFT measure?\n', '## What does TTFT measure?\n<!-- kb:id=abcdefgh2345 -->\n');
    const result = insert('cards/m.md', text);
    expect(result.inserted).toHaveLength(1);
    const { id, line } = result.inserted[0];
    expect(line).toBe(7);
    expect(result.text).toBe(text.replace('TPOT?\n```kb-calc', `TPOT?\n<!-- kb:id=${id} -->\n\`\`\`kb-calc`));
    const before = parseKnowledgeFile('cards/m.md', text).cards;
    expect(result.parsed.cards.map((c) => c.contentHash)).toEqual(before.map((c) => c.contentHash));
    expect(result.parsed.cards.map((c) => c.id)).toEqual([id, 'abcdefgh2345']);
    expect(result.parsed.cards.map((c) => c.line)).toEqual([7, 20]);
  });

  it('adds id= to a kb comment that has none', () => {
    const text = '## Q\n<!-- kb:lab=paged-kv -->\nA\n';
    const result = insert('cards/d.md', text);
    expect(result.text).toBe(`## Q\n<!-- kb:id=${result.inserted[0].id} lab=paged-kv -->\nA\n`);
    expect(result.parsed.cards[0].lab).toBe('paged-kv');
  });

  it('handles a heading on the last line without a line ending, and setext headings', () => {
    const result = insert('cards/d.md', 'Q1\n--\n\nA1\n\n## Q2');
    const [a, b] = result.inserted;
    expect(result.text).toBe(`Q1\n--\n<!-- kb:id=${a.id} -->\n\nA1\n\n## Q2\n<!-- kb:id=${b.id} -->`);
  });

  it('uses the id chooser when given', () => {
    const text = '## Q\n\nA\n';
    const result = insertMissingIds(text, parseKnowledgeFile('cards/d.md', text), (card) => `fixed-${card.line}`);
    expect(result.text).toBe('## Q\n<!-- kb:id=fixed-1 -->\n\nA\n');
  });

  it('only ever inserts: removing the inserted ids gives back the original bytes', () => {
    const line = fc.constantFrom('## Question', '## 问题 {x}', 'Answer text.', '', '```', '# Title', '<!-- note -->', 'lab: ttft', '- item', '  code', '### sub');
    fc.assert(fc.property(fc.array(line, { maxLength: 25 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), (lines, eol, bom) => {
      const text = (bom ? '\uFEFF' : '') + lines.join(eol);
      const before = parseKnowledgeFile('cards/p.md', text);
      const result = insertMissingIds(text, before);
      const stripped = result.text.replace(/(\r?\n)?<!-- kb:id=[a-z2-7]{12} -->/g, '');
      expect(stripped).toBe(text);
      expect(result.inserted).toHaveLength(before.cards.filter((c) => c.id === null).length);
      expect(result.parsed.cards.map((c) => c.contentHash)).toEqual(before.cards.map((c) => c.contentHash));
      expect(result.parsed.cards.every((c) => c.id !== null)).toBe(true);
    }), { numRuns: 300 });
  });
});

describe('duplicate and invalid ids', () => {
  it('reports two cards of one file with one id at the second id comment\'s line, naming both comments\' lines and both questions', () => {
    const text = '## Q1\n<!-- kb:id=abcdefgh2345 -->\nA\n\n## Q2\n<!-- kb:id=abcdefgh2345 -->\nB\n';
    const parsed = parseKnowledgeFile('cards/d.md', text);
    expect(parsed.cards).toEqual([]);
    expect(parsed.skipped).toBe(true);
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ severity: 'error', file: 'cards/d.md', line: 6 })]);
    expect(parsed.diagnostics[0].message).toContain('lines 2 and 6 ("## Q1" and "## Q2")');
    expect(insertMissingIds(text, parsed).text).toBe(text);
  });

  it('refuses ids that are not one url-safe word', () => {
    expect(parseKnowledgeFile('notes/a.md', '---\nid: two words\n---\n# Q\n').diagnostics[0]).toMatchObject({ severity: 'error', line: 2 });
    expect(parseKnowledgeFile('notes/a.md', '---\nid: 123\n---\n# Q\n').skipped).toBe(true);
    expect(parseKnowledgeFile('cards/a.md', '## Q\n<!-- kb:id=a/b -->\n').diagnostics[0]).toMatchObject({ severity: 'error', line: 2 });
  });
});
