import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/kb/seeded-random.ts';
import { matchesFilter, pickCards, pickWeight, type PickCandidate } from '../../src/srs/quiz-pick.ts';

const NOW = Date.UTC(2026, 10, 22);
const DAY = 86_400_000;

function candidate(id: string, overrides: Partial<PickCandidate> = {}): PickCandidate {
  return { id, tags: [], deck: 'd', state: 2, stability: 100, difficulty: 3, reps: 8, lapses: 0, quizzed: 0, lastFailedAt: null, ...overrides };
}

const unseen = (id: string) => candidate(id, { state: 0, stability: 0, difficulty: 0, reps: 0 });
const failed = (id: string) => candidate(id, { stability: 10, difficulty: 5, lapses: 1, lastFailedAt: NOW - DAY });
const known = (id: string) => candidate(id);

describe('quiz draw weights', () => {
  it('puts never-seen and recently failed cards above well-known ones', () => {
    expect(pickWeight(unseen('u'), NOW)).toBe(4);
    expect(pickWeight(known('k'), NOW)).toBeLessThan(1.3);
    expect(pickWeight(failed('f'), NOW)).toBeGreaterThan(pickWeight(known('k'), NOW) * 3);
    // Low stability and high difficulty each add weight.
    expect(pickWeight(candidate('a', { stability: 1 }), NOW)).toBeGreaterThan(pickWeight(candidate('b', { stability: 50 }), NOW));
    expect(pickWeight(candidate('a', { difficulty: 9 }), NOW)).toBeGreaterThan(pickWeight(candidate('b', { difficulty: 2 }), NOW));
  });

  it('lets a failure fade: half its weight a week later', () => {
    const extra = (ago: number) => pickWeight(candidate('x', { lastFailedAt: NOW - ago }), NOW) - pickWeight(candidate('x'), NOW);
    expect(extra(0)).toBeCloseTo(3, 9);
    expect(extra(7 * DAY)).toBeCloseTo(1.5, 9);
    expect(extra(70 * DAY)).toBeLessThan(0.01);
  });

  it('a card quizzed once is no longer unseen', () => {
    expect(pickWeight(candidate('q', { state: 0, stability: 0, difficulty: 0, reps: 0, quizzed: 1 }), NOW)).toBe(3);
  });
});

describe('quiz draw', () => {
  const deck = [
    ...Array.from({ length: 20 }, (_, i) => unseen(`u${i}`)),
    ...Array.from({ length: 20 }, (_, i) => failed(`f${i}`)),
    ...Array.from({ length: 60 }, (_, i) => known(`k${i}`)),
  ];

  it('favours unseen and failed cards (2000 seeded sessions of 10)', () => {
    const counts = { u: 0, f: 0, k: 0 };
    const sessions = 2000;
    for (let seed = 1; seed <= sessions; seed++) {
      for (const card of pickCards(deck, 10, seededRandom(seed), NOW)) counts[card.id[0] as 'u' | 'f' | 'k'] += 1;
    }
    const total = sessions * 10;
    // A uniform draw would give 20%, 20%, 60%; the weights give about 32%, 33%, 35%.
    expect(counts.u / total).toBeGreaterThan(0.27);
    expect(counts.f / total).toBeGreaterThan(0.27);
    expect(counts.k / total).toBeLessThan(0.42);
    // Per card: an unseen or failed card comes up well over twice as often as a known one.
    const perUnseen = counts.u / 20;
    const perFailed = counts.f / 20;
    const perKnown = counts.k / 60;
    expect(perUnseen / perKnown).toBeGreaterThan(2.2);
    expect(perFailed / perKnown).toBeGreaterThan(2.2);
  });

  it('never repeats a card, stops at the deck size, and repeats exactly with a seed', () => {
    const picked = pickCards(deck, 30, seededRandom(42), NOW);
    expect(new Set(picked.map((c) => c.id)).size).toBe(30);
    expect(pickCards(deck.slice(0, 5), 10, seededRandom(1), NOW)).toHaveLength(5);
    expect(pickCards(deck, 10, seededRandom(42), NOW).map((c) => c.id)).toEqual(picked.slice(0, 10).map((c) => c.id));
    expect(pickCards(deck, 10, seededRandom(43), NOW).map((c) => c.id)).not.toEqual(picked.slice(0, 10).map((c) => c.id));
  });
});

describe('quiz filter', () => {
  it('matches a tag or its sub-tags, and a deck or its sub-decks', () => {
    const card = { tags: ['vllm/paged', 'metrics'], deck: 'serving/api' };
    expect(matchesFilter(card, {})).toBe(true);
    expect(matchesFilter(card, { tag: 'vllm' })).toBe(true);
    expect(matchesFilter(card, { tag: 'vll' })).toBe(false);
    expect(matchesFilter(card, { tag: 'metrics', deck: 'serving' })).toBe(true);
    expect(matchesFilter(card, { deck: 'serving/api' })).toBe(true);
    expect(matchesFilter(card, { deck: 'serv' })).toBe(false);
  });
});
