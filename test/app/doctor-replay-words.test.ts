// kb doctor's words for a schedule that does not replay from its log: found by a new-user
// probe as "its rating 3 of 2026-11-30T10:13:00.084Z ... stability 3.92105 vs 2.3065000000000002".
import { describe, expect, it } from 'vitest';
import { replayProblemText } from '../../src/app/doctor/replay-words.ts';
import { localMinuteLabel } from '../../src/srs/study-day.ts';

const AT = Date.UTC(2026, 10, 26, 21, 4, 54, 473);
const DUE = Date.UTC(2026, 10, 30, 10, 13, 0, 84);

describe('replayProblemText', () => {
  it('a lost change: the rating by name, times to the minute, stability and difficulty rounded, states by name', () => {
    const text = replayProblemText({
      id: 'aaaaaaaaaaaa',
      kind: 'lost',
      entry: { rating: 3, action: null, at: AT },
      differences: [
        { field: 'reps', found: 0, expected: 2 },
        { field: 'state', found: 0, expected: 2 },
        { field: 'due', found: DUE, expected: null },
        { field: 'stability', found: 3.92105, expected: 2.3065000000000002 },
      ],
    });
    expect(text).toBe(
      `its rating Good of ${localMinuteLabel(AT)} starts from a state (reps 0, state new, due ${localMinuteLabel(DUE)}, stability 3.92) the entry before did not leave (reps 2, state review, due none, stability 2.31): a change was lost`,
    );
  });

  it('a difference that two decimals would hide shows the digits that tell it; an action by its name', () => {
    const text = replayProblemText({
      id: 'aaaaaaaaaaaa',
      kind: 'lost',
      entry: { rating: null, action: 'suspend', at: AT },
      differences: [{ field: 'difficulty', found: 5.1234, expected: 5.1239 }],
    });
    expect(text).toBe(`its suspend of ${localMinuteLabel(AT)} starts from a state (difficulty 5.123) the entry before did not leave (difficulty 5.124): a change was lost`);
  });

  it("a row that is not what its log leaves", () => {
    expect(replayProblemText({ id: 'aaaaaaaaaaaa', kind: 'row', differences: [{ field: 'lapses', found: 1, expected: 0 }] })).toBe('its schedule (lapses 1) is not what its log leaves (lapses 0)');
  });
});
