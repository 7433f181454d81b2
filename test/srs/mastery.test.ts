import fc from 'fast-check';
import { default_w } from 'ts-fsrs';
import { describe, expect, it } from 'vitest';
import { masteryLevel } from '../../src/srs/mastery.ts';

describe('masteryLevel', () => {
  it('is 0 for a new card', () => {
    expect(masteryLevel({ state: 0, stability: 0 }, default_w)).toBe(0);
  });

  it('is 0.90 when the stability is 30 days: recall 30 days on is the 90% that defines stability', () => {
    expect(masteryLevel({ state: 2, stability: 30 }, default_w)).toBe(0.9);
  });

  it('grows with stability, stays in [0, 1] with two decimals', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 36500, noNaN: true }), fc.double({ min: 0.01, max: 36500, noNaN: true }), (a, b) => {
        const [low, high] = a < b ? [a, b] : [b, a];
        const m1 = masteryLevel({ state: 2, stability: low }, default_w);
        const m2 = masteryLevel({ state: 2, stability: high }, default_w);
        expect(m1).toBeLessThanOrEqual(m2);
        for (const m of [m1, m2]) {
          expect(m).toBeGreaterThanOrEqual(0);
          expect(m).toBeLessThanOrEqual(1);
          expect(Math.round(m * 100) / 100).toBe(m);
        }
      }),
    );
  });
});
