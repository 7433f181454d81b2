import { describe, expect, it } from 'vitest';
import { dueForecast, histogram, retentionPerWeek, reviewsPerDay, stateCounts, STABILITY_EDGES, stabilityLabel } from '../../src/app/stats/stats-buckets.ts';

const at = (d: number, h: number) => new Date(2026, 2, d, h).getTime();
const NOW = at(10, 12);

describe('stats', () => {
  it('forecasts due cards per review day, the overdue counted today', () => {
    const forecast = dueForecast([at(1, 9), at(10, 20), at(11, 3), at(11, 5), at(13, 12)], NOW, '04:00', 5);
    expect(forecast.map((d) => d.count)).toEqual([3, 1, 0, 1, 0]);
    expect(forecast[0].day).toBe('2026-03-10');
    expect(forecast[4].day).toBe('2026-03-14');
  });

  it('counts reviews per day, oldest first, ending today', () => {
    const days = reviewsPerDay([at(10, 5), at(10, 3), at(8, 12), at(1, 12)], NOW, '04:00', 3);
    expect(days).toEqual([
      { day: '2026-03-08', count: 1 },
      { day: '2026-03-09', count: 1 },
      { day: '2026-03-10', count: 1 },
    ]);
  });

  it('takes true retention from review-state cards only', () => {
    const weeks = retentionPerWeek(
      [
        { reviewed_at: at(10, 9), rating: 3, state_before: 2 },
        { reviewed_at: at(10, 9), rating: 1, state_before: 2 },
        { reviewed_at: at(9, 9), rating: 1, state_before: 0 },
        { reviewed_at: at(9, 9), rating: 4, state_before: 2 },
      ],
      NOW,
      '04:00',
      2,
    );
    expect(weeks[0]).toMatchObject({ reviews: 0, retention: null });
    expect(weeks[1]).toMatchObject({ reviews: 3, passed: 2 });
    expect(weeks[1].retention).toBeCloseTo(2 / 3);
  });

  it('counts states and buckets values', () => {
    expect(stateCounts([{ state: 0, suspended: 0, buried: 0, n: 5 }, { state: 2, suspended: 1, buried: 0, n: 2 }, { state: 2, suspended: 0, buried: 1, n: 1 }])).toEqual({
      new: 5, learning: 0, review: 0, relearning: 0, suspended: 2, buried: 1, total: 8,
    });
    const buckets = histogram([0.5, 2, 400, 30], STABILITY_EDGES, stabilityLabel);
    expect(buckets.find((b) => b.label === '0-1d')?.count).toBe(1);
    expect(buckets.find((b) => b.label === '30-90d')?.count).toBe(1);
    expect(buckets.find((b) => b.label === '365d+')?.count).toBe(1);
  });
});
