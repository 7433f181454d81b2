// The review screen's key list (`?`) keeps each key on one row at 80 columns (issue #13,
// item 9: nothing kb draws may wrap at 80 columns or wider).
import { renderToString } from 'ink';
import { describe, expect, it } from 'vitest';
import { HelpPanel } from '../../src/ui/review/HelpPanel.tsx';

describe('HelpPanel', () => {
  it('draws one row per key at 80 columns, with and without e', () => {
    for (const editable of [true, false]) {
      const lines = renderToString(<HelpPanel editable={editable} />, { columns: 80 }).split('\n');
      // Border above, "Keys", one row per key, border below.
      const keyRows = lines.slice(2, -1);
      expect(keyRows.every((row) => /^│ \S/.test(row))).toBe(true);
      expect(keyRows).toHaveLength(editable ? 13 : 12);
      expect(lines.some((line) => line.includes('e  ') && line.includes('$EDITOR'))).toBe(editable);
    }
  });
});
