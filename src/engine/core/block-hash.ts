// The prefix-cache key of a full block: a hash of its parent block's key and its own tokens,
// so equal keys mean (barring collisions, which the caller rules out by comparing tokens)
// equal prefixes up to and including this block.
import { mix32 } from '../sampling-rng.ts';

export const NO_HASH = -1;
const TWO_32 = 4294967296;

/** A 53-bit key (two 32-bit lanes, so collisions are rare) of `parent` + tokens[start, end). */
export function blockHash(parent: number, tokens: ArrayLike<number>, start: number, end: number): number {
  const parentLo = parent === NO_HASH ? 0x12345678 : parent % TWO_32;
  const parentHi = parent === NO_HASH ? 0x9abcdef0 : Math.floor(parent / TWO_32);
  let a = mix32(parentLo ^ 0x2545f491);
  let b = mix32(parentHi ^ 0x6c8e9cf5);
  for (let i = start; i < end; i++) {
    a = mix32((a ^ tokens[i]) >>> 0);
    b = mix32((Math.imul(b, 31) + tokens[i] + 0x7f4a7c15) >>> 0);
  }
  return a * 2097152 + (b >>> 11);
}
