// Issue #13, item 17: unclosed frontmatter and lone-CR files are errors naming path and line,
// and kb never writes into them; an empty file is a warning, not a card.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { note } from './scan-fixtures.ts';

const unclosed = "---\ncreated: '2025-10-19'\nid: keepthisid01\nreview_count: 3\n# Never closed\n\n## Answer\n\nYes.\n";
const loneCr = note('Old Mac', { id: 'macclassic01' }).replace(/\n/g, '\r');
const unclosedCards = '---\ntags: [x]\n## Q?\n\nA.\n';

describe('kb scan on files of the wrong shape', () => {
  it('reports unclosed frontmatter and lone-CR files with path and line, writes nothing into them, and warns of empty files', () => {
    const files = {
      'notes/good.md': note('Good'),
      'notes/unclosed.md': unclosed,
      'notes/lone-cr.md': loneCr,
      'notes/empty.md': '',
      'notes/blank.md': '\n  \n',
      'cards/unclosed.md': unclosedCards,
    };
    const root = writeKb(files);
    const result = runKb(['--kb', root, 'scan', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    const where = (list: { file: string; line?: number }[]) => list.map((d) => `${d.file}:${d.line ?? ''}`).sort();
    expect(where(report.errors)).toEqual(['cards/unclosed.md:1', 'notes/lone-cr.md:1', 'notes/unclosed.md:1']);
    expect(report.errors.find((d: { file: string }) => d.file === 'notes/unclosed.md').message).toMatch(/never closed/);
    expect(report.errors.find((d: { file: string }) => d.file === 'notes/lone-cr.md').message).toMatch(/lone CR/);
    expect(where(report.warnings)).toEqual(['notes/blank.md:', 'notes/empty.md:']);
    expect(report.cards.total).toBe(1); // only the good note: an empty file is no card

    for (const path of ['notes/unclosed.md', 'notes/lone-cr.md', 'notes/empty.md', 'notes/blank.md', 'cards/unclosed.md']) {
      expect(readFileSync(join(root, path), 'utf8'), path).toBe(files[path as keyof typeof files]);
    }
    const due = runKb(['--kb', root, 'due', '--json']);
    expect(due.code).toBe(0);
    expect(due.stdout).not.toMatch(/Never closed|Old Mac|empty|blank/);
  });
});
