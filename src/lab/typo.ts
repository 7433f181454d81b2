// "Did you mean ...?": the name a learner probably meant when they typed one kb does not know
// (a --set key, a kb-calc card's lab metric, a --tag), one rule for all of them.
import { distance } from 'fastest-levenshtein';

/** How many letters a typo may get wrong in a name of `length` letters: one in three, one at least. */
export function typoBudget(length: number): number {
  return Math.max(1, Math.floor(length / 3));
}

/**
 * Of `candidates`, the one nearest `name` by edit distance (case-insensitive; the first of
 * equals), when it is a typo away, counted on `counted` letters (the name's own by default);
 * else null.
 */
export function nearestTypo(name: string, candidates: readonly string[], counted = name.length): string | null {
  const lower = name.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= typoBudget(counted) ? best : null;
}
