// kb scan's problem lines: one problem met in thousands of notes (the later of two kb scan run
// at once finds every note changed) must not print thousands of lines.
import { describe, expect, it } from 'vitest';
import { diagnosticLines } from '../../src/cli/scan.ts';
import type { Diagnostic } from '../../src/model/knowledge-base.ts';

const warning = (file: string, message: string, line?: number): Diagnostic => ({ severity: 'warning', file, message, ...(line ? { line } : {}) });

describe('diagnosticLines', () => {
  it('shows the first files of a repeated problem in full and counts the rest in one line', () => {
    const changed = Array.from({ length: 2000 }, (_, i) => warning(`notes/n${i}.md`, 'the note changed'));
    const lines = diagnosticLines([warning('notes/a.md', 'empty file'), ...changed, { severity: 'error', file: 'notes/b.md', line: 3, message: 'bad YAML' }]);
    expect(lines).toEqual([
      'warning: notes/a.md: empty file',
      'warning: notes/n0.md: the note changed',
      'warning: notes/n1.md: the note changed',
      'warning: notes/n2.md: the note changed',
      'error: notes/b.md:3: bad YAML',
      'warning: 1997 more files: the note changed (kb scan --json lists every file)',
    ]);
  });

  it('counts files, not lines: a shown file keeps all its lines, a counted one is counted once', () => {
    const lines = diagnosticLines([warning('a.md', 'x', 1), warning('b.md', 'x'), warning('a.md', 'x', 9), warning('c.md', 'x'), warning('c.md', 'x', 2), warning('d.md', 'x')], 1);
    expect(lines).toEqual(['warning: a.md:1: x', 'warning: a.md:9: x', 'warning: 3 more files: x (kb scan --json lists every file)']);
  });

  it('prints every line when no problem repeats beyond the files shown', () => {
    const few = [warning('a.md', 'x'), warning('b.md', 'x'), warning('c.md', 'x'), warning('d.md', 'y')];
    expect(diagnosticLines(few)).toEqual(few.map((each) => `warning: ${each.file}: ${each.message}`));
  });
});
