import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  nextReviewDayStart,
  parseDayStart,
  reviewDayLabel,
  reviewDaysBetween,
  reviewDayStart,
  toSchedulingClock,
} from '../../src/srs/study-day.ts';

const at = (y: number, m: number, d: number, h: number, min = 0) => new Date(y, m - 1, d, h, min).getTime();

describe('review days', () => {
  it('start at the configured local time, so 03:59 belongs to the day before', () => {
    expect(reviewDayStart(at(2026, 3, 10, 3, 59), '04:00').getTime()).toBe(at(2026, 3, 9, 4));
    expect(reviewDayStart(at(2026, 3, 10, 4, 0), '04:00').getTime()).toBe(at(2026, 3, 10, 4));
    expect(nextReviewDayStart(at(2026, 3, 10, 23, 0), '04:00').getTime()).toBe(at(2026, 3, 11, 4));
    expect(reviewDayLabel(at(2026, 3, 10, 3, 59), '04:00')).toBe('2026-03-09');
    expect(reviewDayLabel(at(2026, 3, 10, 4, 0), '04:00')).toBe('2026-03-10');
  });

  it('reject a malformed day start', () => {
    expect(() => parseDayStart('4am')).toThrow(/04:00/);
    expect(() => parseDayStart('24:00')).toThrow();
    expect(parseDayStart('00:30')).toBe(30);
  });

  it('count whole review days between two times', () => {
    expect(reviewDaysBetween(at(2026, 3, 9, 10), at(2026, 3, 10, 3, 30), '04:00')).toBe(0);
    expect(reviewDaysBetween(at(2026, 3, 9, 10), at(2026, 3, 10, 4, 30), '04:00')).toBe(1);
  });

  it('hand ts-fsrs a clock whose UTC date is the local review day', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.constantFrom('00:00', '04:00', '06:30', '23:15'),
        (time, dayStartsAt) => {
          expect(toSchedulingClock(time, dayStartsAt).toISOString().slice(0, 10)).toBe(reviewDayLabel(time, dayStartsAt));
        },
      ),
    );
  });
});
