// Seeded uniform draws for sampling. A draw depends only on (request seed, output index),
// never on which step or batch the token was produced in, so a request samples the same
// tokens whether it runs alone, batched, or is preempted and recomputed.

/** murmur3's 32-bit finaliser: a cheap bijection that spreads every input bit. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Combines two 32-bit values into one well-mixed 32-bit value. */
export function hash2(a: number, b: number): number {
  return mix32((mix32(a >>> 0) ^ Math.imul(b >>> 0, 0x9e3779b9)) >>> 0);
}

/** The uniform draw in [0, 1) for output token `index` of a request seeded with `seed`. */
export function samplingUniform(seed: number, index: number): number {
  return hash2(seed, index) / 4294967296;
}

/** A request's own seed when it brings none: derived from the engine seed and its id. */
export function requestSeed(engineSeed: number, requestId: number): number {
  return hash2(engineSeed ^ 0x5eed, requestId);
}
