// The line kb review prints on quitting (found as a user: "Reviewed 1 card in 5s; again 0%;
// still due: 1 new; tomorrow 0 due."): a count of none is said in words, at 80 columns too.
import { describe, expect, it } from 'vitest';
import { summaryLine } from '../../src/ui/review/summary-line.ts';
import { fitLines } from '../../src/ui/text/fit-lines.ts';

const summary = { cards: 1, again: 0, elapsedMs: 5_000, laterToday: 0, stillDue: { learning: 0, review: 0, new: 1 }, tomorrow: 0 };
/** As kb review prints it on an 80-column terminal (fittedToTerminal: short of the last column). */
const at80 = (line: string) => fitLines(line, 79).split('\n');

describe('kb review\'s exit line', () => {
  it('says "nothing due tomorrow", not "tomorrow 0 due"', () => {
    expect(at80(summaryLine(summary))).toEqual(['Reviewed 1 card in 5s; again 0%; still due: 1 new; nothing due tomorrow.']);
  });

  it('gives tomorrow\'s count before "due tomorrow", after the cards later today', () => {
    const line = summaryLine({ ...summary, cards: 12, again: 3, elapsedMs: 65_000, laterToday: 2, stillDue: { learning: 0, review: 20, new: 10 }, tomorrow: 12 });
    expect(at80(line)).toEqual(['Reviewed 12 cards in 1m 05s; again 25%; still due: 20 review, 10 new; 2 more', 'later today, 12 due tomorrow.']);
  });

  it('quit before the first rating: "No cards reviewed", no time or again rate of nothing', () => {
    expect(at80(summaryLine({ ...summary, cards: 0, elapsedMs: 0, stillDue: { learning: 0, review: 0, new: 2 } }))).toEqual([
      'No cards reviewed; still due: 2 new; nothing due tomorrow.',
    ]);
  });
});
