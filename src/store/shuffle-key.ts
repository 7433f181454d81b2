// Seeded hashing for orders that look random but are reproducible: new cards shuffled per
// study day (as SQL function kb_shuffle, so pages of them are read in that order), and a
// calc card's values drawn once per study day.

/** FNV-1a over the UTF-16 code units of `text`, started from `seed`: a 32-bit unsigned hash. */
export function hashText(text: string, seed = 0): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return finalMix(hash);
}

/**
 * A card's place in the random order of `seed` (a study day's): ids that differ in one
 * character land far apart, and another seed gives an unrelated permutation.
 */
export function shuffleKey(id: string, seed: number): number {
  return hashText(id, seed);
}

/** MurmurHash3's finaliser: FNV alone leaves the high bits of similar strings close together. */
function finalMix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
