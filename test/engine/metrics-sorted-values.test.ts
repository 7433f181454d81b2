import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { percentile, percentiles } from '../../src/engine/metrics/percentile.ts';
import { sortValues } from '../../src/engine/metrics/sorted-values.ts';

/** The percentiles as the engine computed them before values were counted: a sorted typed copy, summed in order. */
function sortedReference(values: number[]) {
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => {
    const rank = (p / 100) * (sorted.length - 1);
    const lo = Math.floor(rank);
    const hi = Math.ceil(rank);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
  };
  let sum = 0;
  for (const v of sorted) sum += v;
  return { p50: at(50), p95: at(95), p99: at(99), mean: sorted.length > 0 ? sum / sorted.length : Number.NaN, count: sorted.length };
}

const special = fc.constantFrom(0, -0, Number.NaN, Infinity, -Infinity, 0.1, 0.1 + 0.2, 5e-324);
// Few distinct values (counted) and many (sorted), in runs and shuffled, with the awkward ones mixed in.
const fewDistinct = fc
  .tuple(fc.array(fc.oneof(fc.double(), special), { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { minLength: 1, maxLength: 3000 }))
  .map(([pool, picks]) => picks.map((i) => pool[i % pool.length]));
const manyDistinct = fc.array(fc.oneof(fc.double(), special), { maxLength: 300 });
const pastTheTable = fc.integer({ min: 4090, max: 4200 }).map((n) => Array.from({ length: n * 2 }, (_, i) => (i % n) * 0.37 - 100));

describe('values counted instead of sorted', () => {
  for (const [name, values] of [
    ['few distinct values', fewDistinct],
    ['many distinct values', manyDistinct],
    ['just past the counting table', pastTheTable],
  ] as const) {
    it(`give exactly the sorted array's percentiles and mean: ${name}`, () => {
      fc.assert(
        fc.property(values, (vs) => {
          const want = sortedReference(vs);
          const got = percentiles(vs);
          for (const key of ['p50', 'p95', 'p99', 'mean', 'count'] as const) expect(Object.is(got[key], want[key]), `${key}: ${got[key]} vs ${want[key]}`).toBe(true);
        }),
        { numRuns: name === 'just past the counting table' ? 10 : 200 },
      );
    });
  }

  it('read every rank as the sorted array holds it', () => {
    fc.assert(
      fc.property(fewDistinct, (vs) => {
        const sorted = Float64Array.from(vs).sort();
        const counted = sortValues(vs);
        expect(counted.count).toBe(sorted.length);
        for (let i = 0; i < sorted.length; i++) expect(Object.is(counted.at(i), sorted[i])).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('take typed arrays as well as arrays', () => {
    const values = [3, 1, 2, 2, 2, 1];
    expect(percentiles(Float64Array.from(values))).toEqual(percentiles(values));
    expect(percentile(Float64Array.from(values), 50)).toBe(2);
  });
});
