// FsrsScheduler.rate walks ts-fsrs's BasicScheduler steps itself (src/srs/fsrs.ts): it must give
// what ts-fsrs's own FSRS.next gives, to the bit, for any card, answer, time and settings, and
// what preview shows for that answer. Checked on random cards (valid and not) and on random
// histories walked from a new card, in several time zones; both keep a review card's Hard, Good
// and Easy within maximumInterval, where ts-fsrs's "a day past the answer below" would pass it.
// And columnsJson, which writes the rows a replay stores, against JSON.stringify.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { default_w } from 'ts-fsrs';
import { FsrsScheduler } from '../../src/srs/fsrs.ts';
import { newCardState } from '../../src/kb/seed-fsrs.ts';
import { columnsJson, REVIEW, type FsrsColumns, type FsrsState, type Grade } from '../../src/model/fsrs-state.ts';
import type { ReviewSettings } from '../../src/srs/review-settings.ts';
import { testSettings } from './settings.ts';

const STEPS = [[], ['1m'], ['1m', '10m'], ['10m', '1d'], ['30m', '2h', '1d'], ['1d', '3d'], ['1440m'], ['90m', '25h']];
const RELEARNING = [[], ['10m'], ['1d'], ['10m', '1h'], ['2d']];

const settingsArb: fc.Arbitrary<ReviewSettings> = fc.record({
  desiredRetention: fc.double({ min: 0.7, max: 0.99, noNaN: true }),
  maximumInterval: fc.oneof(fc.constant(36500), fc.integer({ min: 1, max: 400 })),
  learningSteps: fc.constantFrom(...STEPS),
  relearningSteps: fc.constantFrom(...RELEARNING),
  dayStartsAt: fc.constantFrom('00:00', '04:00', '06:30', '23:15'),
  fuzz: fc.boolean(),
  weights: fc.option(fc.array(fc.double({ min: 0.001, max: 1, noNaN: true }), { minLength: 21, maxLength: 21 }), { nil: undefined }),
}).map(({ weights, ...rest }) =>
  testSettings({ ...rest, ...(weights ? { fsrsParameters: { weights: default_w.map((w, i) => w * (0.5 + weights[i])) } } : {}) }),
);

const timeArb = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2090, 0, 1) });

/** Any card, including ones FSRS refuses (stability or difficulty out of range). */
const stateArb: fc.Arbitrary<FsrsState> = fc.record({
  due: timeArb,
  stability: fc.oneof(fc.constant(0), fc.double({ min: 0.0001, max: 40000, noNaN: true })),
  difficulty: fc.oneof(fc.constant(0), fc.double({ min: 0.5, max: 10, noNaN: true })),
  elapsedDays: fc.integer({ min: 0, max: 400 }),
  scheduledDays: fc.integer({ min: 0, max: 400 }),
  learningSteps: fc.integer({ min: 0, max: 3 }),
  reps: fc.integer({ min: 0, max: 50 }),
  lapses: fc.integer({ min: 0, max: 10 }),
  state: fc.constantFrom(0, 1, 2, 3),
  lastReview: fc.option(timeArb, { nil: null }),
});

const gradeArb = fc.constantFrom<Grade>(1, 2, 3, 4);

/** What one way of rating gives: the state, or the error it throws. */
function outcome(rate: () => FsrsState): FsrsState | { error: string } {
  try {
    return rate();
  } catch (error) {
    return { error: String(error) };
  }
}

function expectSame(scheduler: FsrsScheduler, cardId: string, before: FsrsState, grade: Grade, now: number): FsrsState | null {
  const fast = outcome(() => scheduler.rate(cardId, before, grade, now));
  const tsFsrs = outcome(() => scheduler.rateThroughTsFsrs(cardId, before, grade, now));
  // toStrictEqual tells 0 from -0 and NaN from a number; Object.is below double-checks each field.
  expect(fast).toStrictEqual(tsFsrs);
  if ('error' in fast) return null;
  for (const key of Object.keys(tsFsrs) as Array<keyof FsrsState>) expect(Object.is(fast[key], (tsFsrs as FsrsState)[key])).toBe(true);
  return fast;
}

const zone = process.env.TZ;
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('FsrsScheduler.rate', () => {
  it('gives what ts-fsrs gives for any card, answer and time', () => {
    fc.assert(
      fc.property(settingsArb, fc.string({ minLength: 1, maxLength: 14 }), stateArb, gradeArb, timeArb, (settings, cardId, before, grade, now) => {
        expectSame(new FsrsScheduler(settings), cardId, before, grade, now);
      }),
      { numRuns: 3000 },
    );
  });

  for (const tz of ['UTC', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Europe/Amsterdam']) {
    it(`walks a history from a new card as ts-fsrs does (${tz})`, () => {
      process.env.TZ = tz;
      fc.assert(
        fc.property(
          settingsArb,
          fc.array(fc.tuple(gradeArb, fc.integer({ min: 0, max: 40 * 86_400_000 })), { minLength: 1, maxLength: 40 }),
          fc.integer({ min: Date.UTC(1920, 0, 1), max: Date.UTC(2080, 0, 1) }),
          (settings, answers, start) => {
            const scheduler = new FsrsScheduler(settings);
            let state = newCardState(start);
            let now = start;
            for (const [grade, wait] of answers) {
              now += wait;
              const next = expectSame(scheduler, 'card-x', state, grade, now);
              if (next === null) return;
              expect(scheduler.preview('card-x', state, now)[grade - 1].after).toStrictEqual(next);
              state = next;
            }
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it('never puts a review card answered Hard, Good or Easy past maximumInterval', () => {
    fc.assert(
      fc.property(settingsArb, stateArb, fc.constantFrom<Grade>(2, 3, 4), timeArb, (settings, before, grade, now) => {
        const card = { ...before, state: REVIEW, stability: Math.max(0.01, before.stability), difficulty: Math.min(10, Math.max(1, before.difficulty)), lastReview: Math.min(now, before.lastReview ?? now) };
        const after = expectSame(new FsrsScheduler(settings), 'card-m', card, grade, now);
        if (after !== null) expect(after.scheduledDays).toBeLessThanOrEqual(settings.maximumInterval);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves what it cannot rate to ts-fsrs: a grade outside 1-4 fails as there', () => {
    const scheduler = new FsrsScheduler(testSettings());
    const card = newCardState(Date.UTC(2026, 0, 1));
    expect(() => scheduler.rate('c', card, 0 as Grade, Date.UTC(2026, 0, 2))).toThrow(/manual rating/);
  });
});

describe('columnsJson', () => {
  const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1e21, 1e-7, 0.1 + 0.2));
  it('writes what JSON.stringify writes for a row in the columns order', () => {
    fc.assert(
      fc.property(
        fc.tuple(...Array.from({ length: 9 }, () => number)),
        fc.option(number, { nil: null }),
        fc.constantFrom<0 | 1>(0, 1),
        fc.oneof(fc.constant(null), fc.constant(undefined), number),
        fc.constantFrom<0 | 1 | undefined>(0, 1, undefined),
        ([due, stability, difficulty, elapsed, scheduled, steps, reps, lapses, state], lastReview, suspended, buriedUntil, leech) => {
          const row = {
            due,
            stability,
            difficulty,
            elapsed_days: elapsed,
            scheduled_days: scheduled,
            learning_steps: steps,
            reps,
            lapses,
            state: state as FsrsColumns['state'],
            last_review: lastReview,
            suspended,
            buried_until: buriedUntil as number | null,
            leech,
          };
          expect(columnsJson(row)).toBe(JSON.stringify(row));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
