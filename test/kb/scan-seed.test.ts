import fc from 'fast-check';
import { default_w, forgetting_curve, S_MAX, S_MIN } from 'ts-fsrs';
import { describe, expect, it } from 'vitest';
import { seedFsrsState, stabilityForRecall } from '../../src/kb/seed-fsrs.ts';
import { parseFrontmatterDate, reviewDayLabel } from '../../src/srs/study-day.ts';
import type { NoteSeed } from '../../src/model/knowledge-base.ts';

const dayMs = 86_400_000;
const seed = (fields: Partial<NoteSeed>): NoteSeed => ({
  created: null,
  lastReviewed: null,
  nextReview: null,
  reviewCount: null,
  difficulty: null,
  masteryLevel: null,
  ...fields,
});
const now = new Date(2025, 10, 1, 12).getTime();

describe('frontmatter dates', () => {
  it('reads a day as that local day at the day start, and round-trips it', () => {
    expect(parseFrontmatterDate('2025-10-19', '04:00')).toBe(new Date(2025, 9, 19, 4).getTime());
    expect(reviewDayLabel(new Date(2025, 9, 19, 4).getTime(), '04:00')).toBe('2025-10-19');
    // 1 am belongs to the study day before.
    expect(reviewDayLabel(new Date(2025, 9, 20, 1).getTime(), '04:00')).toBe('2025-10-19');
  });

  it('refuses what is not a date', () => {
    for (const value of ['tomorrow', '2025-13-01', '2025-02-30', '', '19/10/2025']) expect(parseFrontmatterDate(value, '04:00')).toBeNull();
    expect(parseFrontmatterDate(null, '04:00')).toBeNull();
  });

  it('round-trips any day', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date(2000, 0, 1), max: new Date(2090, 0, 1), noInvalidDate: true }), (date) => {
        const day = reviewDayLabel(date.getTime(), '04:00');
        expect(reviewDayLabel(parseFrontmatterDate(day, '04:00')!, '04:00')).toBe(day);
      }),
    );
  });
});

describe('seedFsrsState', () => {
  it('makes a never-reviewed note New, due at its next_review or now', () => {
    expect(seedFsrsState(seed({ reviewCount: 0, nextReview: '2025-10-19' }), now, '04:00')).toMatchObject({
      state: 0,
      due: new Date(2025, 9, 19, 4).getTime(),
      stability: 0,
      difficulty: 0,
      reps: 0,
    });
    expect(seedFsrsState(seed({}), now, '04:00')).toMatchObject({ state: 0, due: now });
    expect(seedFsrsState(null, now, '04:00')).toMatchObject({ state: 0, due: now });
  });

  it('makes a reviewed note a Review card whose stability is its last interval', () => {
    const state = seedFsrsState(
      seed({ reviewCount: 3, lastReviewed: '2025-10-01', nextReview: '2025-10-11', difficulty: 'hard', masteryLevel: 0.7 }),
      now,
      '04:00',
    );
    expect(state).toMatchObject({ state: 2, reps: 3, difficulty: 7, scheduledDays: 10, lastReview: new Date(2025, 9, 1, 4).getTime() });
    expect(state.stability).toBeCloseTo(10, 5);
    expect(state.due).toBe(new Date(2025, 9, 11, 4).getTime());
  });

  it('derives stability from mastery when there is no next_review', () => {
    const lastReviewed = '2025-10-22';
    const state = seedFsrsState(seed({ reviewCount: 2, lastReviewed, masteryLevel: 0.8, difficulty: 'easy' }), now, '04:00');
    const elapsed = (now - parseFrontmatterDate(lastReviewed, '04:00')!) / dayMs;
    expect(state).toMatchObject({ state: 2, difficulty: 3 });
    expect(forgetting_curve(default_w, elapsed, state.stability)).toBeCloseTo(0.8, 4);
    expect(state.due).toBe(parseFrontmatterDate(lastReviewed, '04:00')! + Math.round(state.stability * dayMs));
  });

  it('falls back to the first-Good stability and medium difficulty', () => {
    const state = seedFsrsState(seed({ reviewCount: 1, lastReviewed: '2025-10-22' }), now, '04:00');
    expect(state).toMatchObject({ state: 2, difficulty: 5, stability: default_w[2] });
  });

  it('schedules a reviewed note whose next_review is before its last_reviewed (a hand edit) from last_reviewed, not due before its last review', () => {
    const lastReviewed = '2025-10-22';
    const state = seedFsrsState(seed({ reviewCount: 3, lastReviewed, nextReview: '2025-10-12' }), now, '04:00');
    expect(state).toMatchObject({ state: 2, reps: 3, stability: default_w[2], lastReview: parseFrontmatterDate(lastReviewed, '04:00') });
    expect(state.due).toBe(parseFrontmatterDate(lastReviewed, '04:00')! + Math.round(default_w[2] * dayMs));
    // Never reviewed, last_reviewed does not count: the card is new, due on next_review as before.
    expect(seedFsrsState(seed({ reviewCount: 0, lastReviewed, nextReview: '2025-10-12' }), now, '04:00')).toMatchObject({ state: 0, due: parseFrontmatterDate('2025-10-12', '04:00') });
  });

  it('keeps a count without a last_reviewed date New', () => {
    expect(seedFsrsState(seed({ reviewCount: 4 }), now, '04:00', 123)).toMatchObject({ state: 0, reps: 4, due: 123 });
  });

  it('inverts the forgetting curve', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 0.99, noNaN: true }), fc.double({ min: 0.5, max: 400, noNaN: true }), (recall, days) => {
        const stability = stabilityForRecall(recall, days);
        // Beyond FSRS's stability bounds the answer is clamped; the property holds inside them.
        fc.pre(stability > S_MIN * 1.01 && stability < S_MAX * 0.99);
        expect(forgetting_curve(default_w, days, stability)).toBeCloseTo(recall, 3);
      }),
    );
  });
});
