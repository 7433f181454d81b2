import { describe, expect, it } from 'vitest';
import { becameLeech } from '../../src/srs/leech.ts';
import type { FsrsState } from '../../src/model/fsrs-state.ts';

function withLapses(lapses: number): FsrsState {
  return { due: 0, stability: 1, difficulty: 5, elapsedDays: 0, scheduledDays: 0, learningSteps: 0, reps: 10, lapses, state: 3, lastReview: 0 };
}

const lapse = (from: number, settings = {}) => becameLeech(withLapses(from), withLapses(from + 1), settings);

describe('becameLeech', () => {
  it('flags the lapse that reaches the threshold (8 by default), then every half threshold, as Anki does', () => {
    const flagged = Array.from({ length: 20 }, (_, i) => i + 1).filter((lapses) => lapse(lapses - 1));
    expect(flagged).toEqual([8, 12, 16, 20]);
    expect(Array.from({ length: 8 }, (_, i) => i + 1).filter((lapses) => lapse(lapses - 1, { leechThreshold: 3 }))).toEqual([3, 4, 5, 6, 7, 8]);
    expect(Array.from({ length: 8 }, (_, i) => i + 1).filter((lapses) => lapse(lapses - 1, { leechThreshold: 1 }))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('is never a rating that did not lapse', () => {
    expect(becameLeech(withLapses(8), withLapses(8), {})).toBe(false);
  });
});
