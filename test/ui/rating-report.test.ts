// kb rate's and kb undo's one-line report (found as a user at 80 columns: the due time's
// locale "12:26:08 PM" wrapped "PM" onto a line of its own).
import { describe, expect, it } from 'vitest';
import { describeState } from '../../src/ui/text/rating-report.ts';
import { fitLines } from '../../src/ui/text/fit-lines.ts';

describe('describeState', () => {
  it('says the due time as local YYYY-MM-DD HH:MM, which wraps as one piece', () => {
    const now = new Date(2026, 10, 26, 12, 16, 8).getTime();
    const state = { state: 1, due: now + 10 * 60_000 } as Parameters<typeof describeState>[0];
    const line = describeState(state, now);
    expect(line).toBe('learning, due in 10m (2026-11-26 12:26)');
    const report = `y674hnzxy7c3: good -> ${line}`;
    for (let width = 40; width <= 80; width++) {
      expect(fitLines(report, width).split('\n').some((row) => /\(2026-11-26 12:26\)/.test(row)), `width ${width}`).toBe(true);
    }
  });
});
