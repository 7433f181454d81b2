import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sizedSpreads, spreadAt, spreadFor, spreadQuantiles, stepRatio } from '../../src/engine/backend/sim/step-spread.ts';

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

  it('keeps a table per size of step, each of at least 100 steps, and picks a step\'s by its fitted time', () => {
    // 400 steps: short ones (1-2 ms) spread to 2x, long ones (20-40 ms) to 1.1x.
    const steps = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? { fittedMs: 1 + (i % 100) / 100, ratio: 1 + (i % 10) / 10 } : { fittedMs: 20 + (i % 200) / 10, ratio: 1 + (i % 10) / 100 }));
    const tables = sizedSpreads(steps);
    expect(tables.map((table) => table.fromMs)).toEqual([0, expect.any(Number), expect.any(Number), expect.any(Number)]);
    expect(tables[1].fromMs).toBeLessThan(2);
    expect(tables[2].fromMs).toBeGreaterThanOrEqual(20);
    expect(spreadFor(tables, 1.2)[100]).toBeCloseTo(1.8, 9);
    expect(spreadFor(tables, 35)[100]).toBeCloseTo(1.09, 9);
    expect(spreadFor(tables, 0.1)).toBe(tables[0].quantiles);
    // Too few steps for two tables of 100: one table, for every step.
    expect(sizedSpreads(steps.slice(0, 150))).toEqual([{ fromMs: 0, quantiles: spreadQuantiles(steps.slice(0, 150).map((step) => step.ratio)) }]);
  });
});
