import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spreadAt, spreadQuantiles, stepRatio } from '../../src/engine/backend/sim/step-spread.ts';

describe('step spread', () => {
  it('stores ratios as 101 quantiles and reads them back by linear interpolation', () => {
    const quantiles = spreadQuantiles([3, 1, 2]);
    expect(quantiles).toHaveLength(101);
    expect(quantiles[0]).toBe(1);
    expect(quantiles[50]).toBe(2);
    expect(quantiles[100]).toBe(3);
    expect(quantiles[25]).toBe(1.5);
    expect(spreadAt(quantiles, 0.125)).toBeCloseTo(1.25, 9);
    expect(spreadAt(quantiles, 1)).toBe(3);
    expect(spreadAt(quantiles, 1.5)).toBe(3);
    expect(spreadQuantiles([])).toEqual(new Array(101).fill(1));
  });

  it('draws each quantile range in proportion: the draws follow the stored distribution', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.5, max: 4, noNaN: true }), { minLength: 1, maxLength: 200 }), fc.integer(), (ratios, seed) => {
        const quantiles = spreadQuantiles(ratios);
        const draws = Array.from({ length: 2000 }, (_, step) => stepRatio(quantiles, seed, step));
        for (const draw of draws) {
          expect(draw).toBeGreaterThanOrEqual(quantiles[0] - 1e-9);
          expect(draw).toBeLessThanOrEqual(quantiles[100] + 1e-9);
        }
        // About half the draws fall at or below the stored median.
        const below = draws.filter((draw) => draw <= quantiles[50] + 1e-9).length / draws.length;
        expect(below).toBeGreaterThan(0.45);
      }),
      { numRuns: 30, seed: 11 },
    );
  });
});
