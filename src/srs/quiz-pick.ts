// Which cards a quiz asks: a weighted draw without replacement that leans toward what the
// learner knows least. Pure: the caller passes the cards' memory and history and a seeded
// random source, so a session is reproducible with --seed.
import type { QuizCardHistory } from '../store/quiz-results.ts';

/** What the draw needs to know about one card. */
export interface PickCandidate extends QuizCardHistory {
  id: string;
  tags: readonly string[];
  deck: string;
}

export interface PickFilter {
  /** A tag; its sub-tags match too (`vllm` matches `vllm/paged`). */
  tag?: string;
  /** A deck; its sub-decks match too. */
  deck?: string;
}

const DAY_MS = 86_400_000;
/** Weight terms; a card nothing is known against weighs 1. */
const UNSEEN_BONUS = 3;
const FRAGILE_BONUS = 2;
const FAILURE_BONUS = 3;
const FAILURE_HALF_LIFE_DAYS = 7;
const LAPSE_BONUS = 0.2;
const MAX_LAPSES_COUNTED = 5;

function underName(value: string, name: string): boolean {
  return value === name || value.startsWith(`${name}/`);
}

export function matchesFilter(card: Pick<PickCandidate, 'tags' | 'deck'>, filter: PickFilter): boolean {
  if (filter.deck !== undefined && !underName(card.deck, filter.deck)) return false;
  if (filter.tag !== undefined && !card.tags.some((tag) => underName(tag, filter.tag as string))) return false;
  return true;
}

/**
 * How strongly a card is drawn. Never seen (no review, no quiz): 4. Otherwise 1, plus up to 2
 * for low stability, up to 1 for high difficulty, 0.2 a lapse (5 at most), and 3 for a
 * failure that halves every week since it happened. A well-known card weighs about 1.2.
 */
export function pickWeight(card: PickCandidate, now: number): number {
  let weight = 1;
  if (card.reps === 0 && card.state === 0 && card.quizzed === 0) {
    weight += UNSEEN_BONUS;
  } else {
    weight += FRAGILE_BONUS / (1 + Math.max(0, card.stability));
    weight += (Math.min(10, Math.max(1, card.difficulty)) - 1) / 9;
  }
  weight += LAPSE_BONUS * Math.min(MAX_LAPSES_COUNTED, Math.max(0, card.lapses));
  if (card.lastFailedAt !== null) {
    const ageDays = Math.max(0, now - card.lastFailedAt) / DAY_MS;
    weight += FAILURE_BONUS * 0.5 ** (ageDays / FAILURE_HALF_LIFE_DAYS);
  }
  return weight;
}

/**
 * Draws up to `count` distinct cards, each with probability in proportion to its weight at
 * every draw (Efraimidis-Spirakis: the largest u^(1/w) keys), in the order drawn.
 */
export function pickCards<T extends PickCandidate>(cards: readonly T[], count: number, rng: () => number, now: number): T[] {
  const keyed = cards.map((card) => {
    // 1 - rng() lies in (0, 1]: log never sees 0.
    const u = 1 - rng();
    return { card, key: Math.log(u) / pickWeight(card, now) };
  });
  keyed.sort((a, b) => b.key - a.key);
  return keyed.slice(0, Math.max(0, count)).map((entry) => entry.card);
}
