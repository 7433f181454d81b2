// kb optimize's fit: on a learner drawn from known FSRS weights, the fitted weights predict
// the held-out reviews better than FSRS's defaults; too little history is refused with the
// number still needed.
import { default_w } from 'ts-fsrs';
import { describe, expect, it } from 'vitest';
import type { HistoryRow } from '../../src/store/fit-history.ts';
import { fitFsrs, MIN_TRAINING_ITEMS, NotEnoughHistoryError } from '../../src/srs/fit/fit-weights.ts';
import { trainingItems, trainingSet } from '../../src/srs/fit/training-items.ts';
import { syntheticReviews } from '../helpers/synthetic-reviews.ts';

const START = Date.UTC(2026, 0, 5, 9);

function history(cards: number, perCard: number): HistoryRow[] {
  const ids = Array.from({ length: cards }, (_, index) => `c${String(index).padStart(4, '0')}`);
  return syntheticReviews(ids, perCard, START)
    .map((review, index, all) => ({ card_id: review.card, at: review.at, rating: review.rating, state: index > 0 && all[index - 1].card === review.card ? 2 : 0 }))
    .sort((a, b) => (a.card_id < b.card_id ? -1 : a.card_id > b.card_id ? 1 : a.at - b.at));
}

describe('training items', () => {
  it('one item per review on a later day, with the card history up to it; a forget starts over', () => {
    const day = 86_400_000;
    const rows: HistoryRow[] = [
      { card_id: 'a', at: START, rating: 3, state: 0 },
      { card_id: 'a', at: START + 600_000, rating: 3, state: 1 }, // same day: history only
      { card_id: 'a', at: START + 3 * day, rating: 1, state: 2 },
      { card_id: 'a', at: START + 4 * day, rating: null, state: null },
      { card_id: 'a', at: START + 5 * day, rating: 3, state: 0 },
      { card_id: 'a', at: START + 7 * day, rating: 4, state: 1 },
    ];
    expect(trainingItems(rows, '04:00').map((item) => item.reviews)).toEqual([
      [{ rating: 3, deltaT: 0 }, { rating: 3, deltaT: 0 }, { rating: 1, deltaT: 3 }],
      [{ rating: 3, deltaT: 0 }, { rating: 4, deltaT: 2 }],
    ]);
  });

  it('leaves out a history that starts mid-life (its first review made in review or relearning), counted a card, until a forget starts it over (found by a probe: fitted as a new card\'s first rating)', () => {
    const day = 86_400_000;
    const rows: HistoryRow[] = [
      // Imported from review on: its earlier reviews are not in the log.
      { card_id: 'a', at: START, rating: 3, state: 2 },
      { card_id: 'a', at: START + 10 * day, rating: 3, state: 2 },
      { card_id: 'a', at: START + 30 * day, rating: 1, state: 2 },
      // Forgotten, then learned again from new: that history trains.
      { card_id: 'a', at: START + 31 * day, rating: null, state: null },
      { card_id: 'a', at: START + 32 * day, rating: 3, state: 0 },
      { card_id: 'a', at: START + 35 * day, rating: 3, state: 2 },
      // Starts in relearning: left out too.
      { card_id: 'b', at: START, rating: 1, state: 3 },
      { card_id: 'b', at: START + 2 * day, rating: 3, state: 2 },
      // Starts new, as kb's own reviews and a history imported from its first review do.
      { card_id: 'c', at: START, rating: 3, state: 0 },
      { card_id: 'c', at: START + 3 * day, rating: 3, state: 2 },
      // Starts in learning (its first step's review not in the file): fsrs-rs keeps it, as here.
      { card_id: 'd', at: START, rating: 3, state: 1 },
      { card_id: 'd', at: START + 3 * day, rating: 3, state: 2 },
    ];
    const set = trainingSet(rows, '04:00');
    expect(set.startedMidLife).toBe(2);
    expect(set.items.map((item) => [item.card, item.reviews])).toEqual([
      ['c', [{ rating: 3, deltaT: 0 }, { rating: 3, deltaT: 3 }]],
      ['d', [{ rating: 3, deltaT: 0 }, { rating: 3, deltaT: 3 }]],
      ['a', [{ rating: 3, deltaT: 0 }, { rating: 3, deltaT: 3 }]],
    ]);
  });
});

describe('fitting FSRS', () => {
  it('fitted weights beat the defaults on a learner drawn from other weights', async () => {
    const items = trainingItems(history(400, 8), '04:00');
    expect(items.length).toBeGreaterThan(2000);
    const progress: number[] = [];
    const outcome = await fitFsrs(items, default_w, (done) => progress.push(done));
    expect(outcome.weights).toHaveLength(21);
    expect(outcome.better).toBe(true);
    expect(outcome.fitted.logLoss).toBeLessThan(outcome.previous.logLoss);
    expect(outcome.fitted.rmseBins).toBeLessThan(outcome.previous.rmseBins);
    // The first stabilities move from the defaults (0.2, 1.3, 2.3) towards the learner's (2, 5, 12).
    expect(outcome.weights[2]).toBeGreaterThan(default_w[2] * 2);
    // The bar shows from the start: fsrs-rs reports a fit's progress only as it ends (it first showed at a quarter).
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(5);
  }, 120_000);

  it('judges weights an earlier fit gave only on the reviews since, where they are held out too (found as a user: a fit on all of a history lost to one on 70% of it)', async () => {
    const items = trainingItems(history(400, 8), '04:00');
    // The weights in use: fitted when 70% of these reviews had been made.
    const fittedAt = items[Math.round(items.length * 0.7) - 1].at;
    const earlier = await fitFsrs(items.filter((item) => item.at <= fittedAt), default_w);
    expect(earlier.better).toBe(true);
    // Scored on every later part, they predicted reviews they were fitted to, and a fit on
    // all of the history "did not predict better".
    const outcome = await fitFsrs(items, earlier.weights, undefined, { fittedAt });
    expect(outcome.better).toBe(true);
    expect(outcome.fitted.logLoss).toBeLessThan(outcome.previous.logLoss);
    expect(outcome.scored).toBe(items.filter((item) => item.at > fittedAt).length);

    // Nothing since the fit: nothing to judge a new one on, said so rather than scored in sample.
    const same = await fitFsrs(items.filter((item) => item.at <= fittedAt), earlier.weights, undefined, { fittedAt }).catch((error: unknown) => error);
    expect(same).toBeInstanceOf(NotEnoughHistoryError);
    expect((same as NotEnoughHistoryError).sinceFit).toBe(0);
    expect((same as Error).message).toMatch(/^no review since the weights in use were fitted \(\d{4}-\d{2}-\d{2}\) to judge a new fit against them/);
  }, 180_000);

  it('refuses too little history, saying how many reviews are needed', async () => {
    const items = trainingItems(history(5, 4), '04:00');
    await expect(fitFsrs(items, default_w)).rejects.toThrow(NotEnoughHistoryError);
    await expect(fitFsrs(items, default_w)).rejects.toThrow(`${items.length} reviews on a later day than their card's previous one; ${MIN_TRAINING_ITEMS} needed`);
  });

  it('refuses a history it cannot score, rather than failing inside fsrs-rs (found as a user: "internal error ... NotEnoughData")', async () => {
    // Every card reviewed on two days only: fsrs-rs scores a review only after an earlier day's one.
    const items = Array.from({ length: 100 }, (_, i) => ({ card: `c${i}`, at: i, reviews: [{ rating: 3, deltaT: 0 }, { rating: 1 + (i % 4), deltaT: 1 + (i % 5) }] }));
    const refused = await fitFsrs(items, default_w).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NotEnoughHistoryError);
    expect((refused as NotEnoughHistoryError).noneScorable).toBe(true);
    expect((refused as Error).message).toContain('none of your 100 reviews on a later day than their card\'s previous one can be scored');
  }, 60_000);
});
