// The review screen's key list (`?`) keeps each key on one row at 80 columns (issue #13,
// item 9: nothing kb draws may wrap at 80 columns or wider).
import { renderToString } from 'ink';
import { describe, expect, it } from 'vitest';
import { HelpPanel } from '../../src/ui/review/HelpPanel.tsx';

describe('HelpPanel', () => {
  it('draws one row per key at 80 columns, with and without e', () => {
    for (const editable of [true, false]) {
      // 79: the review screen leaves a terminal's last column free.
      const lines = renderToString(<HelpPanel editable={editable} width={79} />, { columns: 80 }).split('\n');
      // Border above, "Keys", one row per key, border below.
      const keyRows = lines.slice(2, -1);
      expect(keyRows.every((row) => /^│ \S/.test(row))).toBe(true);
      expect(keyRows).toHaveLength(editable ? 13 : 12);
      expect(lines.some((line) => line.includes('e  ') && line.includes('$EDITOR'))).toBe(editable);
      // The calc row says what Enter does: cut to fit, it ended "(unit optional), Enter".
      expect(lines.find((line) => line.includes('calc card'))).toMatch(/│ 0-9 \. then Enter +calc card: check a typed number \(unit optional\) +│/);
    }
  });

  it('says "any key" hides it where it fits, and that the scroll keys scroll it where it does not', () => {
    const fits = renderToString(<HelpPanel width={79} />, { columns: 80 });
    expect(fits).toMatch(/│ any key +hide this help +│/);
    const scrolls = renderToString(<HelpPanel width={79} scrolls />, { columns: 80 }).split('\n');
    expect(scrolls.find((line) => line.includes('any other key'))).toMatch(/│ any other key +hide this help \(j k, arrows, PgUp PgDn scroll it\) +│/);
    expect(scrolls).toHaveLength(fits.split('\n').length);
  });

  it('puts each description under its key on a narrow terminal, every line within the width', () => {
    const lines = renderToString(<HelpPanel width={40} />, { columns: 40 }).split('\n');
    expect(lines.every((line) => line.length <= 40)).toBe(true);
    const at = lines.findIndex((line) => line.startsWith('│ u '));
    expect(lines[at + 1]).toMatch(/^│ {3}undo the last answer, bury or/);
  });
});
