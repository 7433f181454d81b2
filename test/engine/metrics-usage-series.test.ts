import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_USAGE_POINTS, UsageSeries } from '../../src/engine/metrics/usage-series.ts';

describe('UsageSeries', () => {
  it('keeps at most its limit of points, in time order, averaging without losing a step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 2, max: 50 }), (steps, maxPoints) => {
        const series = new UsageSeries(maxPoints);
        let running = 0;
        for (let i = 0; i < steps; i++) {
          series.record(i * 2, { running: i % 7, reservedBlocks: i % 11, usedSlots: i % 13 });
          running += i % 7;
        }
        const points = series.take();
        expect(points.length).toBeLessThanOrEqual(maxPoints);
        if (steps >= maxPoints) expect(points.length).toBeGreaterThanOrEqual(maxPoints / 4);
        expect(points.reduce((sum, p) => sum + p.steps, 0)).toBe(steps);
        // Step-weighted means give back the totals.
        expect(points.reduce((sum, p) => sum + p.running * p.steps, 0)).toBeCloseTo(running, 6);
        for (let i = 1; i < points.length; i++) expect(points[i].time).toBeGreaterThan(points[i - 1].time);
        if (steps > 0) expect(points[0].time).toBe(0);
      }),
    );
  });

  it('starts afresh after take, one point per step again', () => {
    const series = new UsageSeries();
    for (let i = 0; i < 5 * MAX_USAGE_POINTS; i++) series.record(i, { running: 1, reservedBlocks: 2, usedSlots: 3 });
    expect(series.take().length).toBeLessThanOrEqual(MAX_USAGE_POINTS);
    series.record(7, { running: 4, reservedBlocks: 5, usedSlots: 6 });
    expect(series.take()).toEqual([{ time: 7, steps: 1, running: 4, reservedBlocks: 5, usedSlots: 6 }]);
    expect(series.take()).toEqual([]);
  });
});
