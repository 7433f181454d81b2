// Issue #13, item 16: crafted notes under the 5 MB limit that used to hang every command that
// scans (a list nested 1,000 deep, 100,000 frontmatter keys, a line of 100,000 quote marks,
// a 30,000-item list of sub-lists) are each read or skipped with a warning naming them, and
// one bad file never stops the rest.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, writeKb } from '../helpers/kb-cli.ts';
import { note } from './scan-fixtures.ts';

const crafted = {
  'notes/deep-list.md': `# Deep\n\n${Array.from({ length: 1000 }, (_, i) => `${'  '.repeat(i)}- x`).join('\n')}\n`,
  'notes/many-keys.md': `---\n${Array.from({ length: 100_000 }, (_, i) => `k${i}: v`).join('\n')}\n---\n# Keys\n`,
  'notes/quotes.md': `# Quotes\n\n${'> '.repeat(100_000)}x\n`,
  'cards/long-list.md': `## Long list?\n\n${'- x\n  - y\n'.repeat(30_000)}`,
};

describe('kb scan on crafted files', () => {
  it('reads or skips each with a warning naming it, and scans every other file', () => {
    const root = writeKb({ 'notes/good.md': note('Good'), 'cards/deck.md': '## Q?\n\nA.\n', ...crafted });
    const result = runKb(['--kb', root, 'scan', '--json'], { timeoutMs: 120_000 });
    expect(result.code).toBe(0); // warnings only
    const report = JSON.parse(result.stdout);
    // Read before the next command: it scans again, and may read in time what this scan skipped.
    const afterScan = new Map(Object.keys(crafted).map((path) => [path, readFileSync(join(root, path), 'utf8')]));
    const { cards } = JSON.parse(runKb(['--kb', root, 'due', '--json']).stdout) as { cards: Array<{ path: string }> };
    const scanned = new Set(cards.map((card) => card.path));
    for (const path of ['notes/good.md', 'cards/deck.md']) expect(scanned.has(path), path).toBe(true);
    for (const path of Object.keys(crafted)) {
      const warned = report.warnings.some((d: { file: string; message: string }) => d.file === path && /skipped$/.test(d.message));
      expect(warned || scanned.has(path), path).toBe(true);
      // A skipped file is never written into.
      if (warned) expect(afterScan.get(path)).toBe(crafted[path as keyof typeof crafted]);
    }
  });
});
