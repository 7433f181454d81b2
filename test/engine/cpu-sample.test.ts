import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { argmax, createSampleScratch, sampleToken } from '../../src/engine/backend/cpu/sample.ts';

const vocab = 64;
const scratch = createSampleScratch(vocab);
const logitsArb = fc.float32Array({ minLength: vocab, maxLength: vocab, min: -20, max: 20, noNaN: true, noDefaultInfinity: true });
const uniformArb = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

function draw(logits: Float32Array, temperature: number, topK: number, topP: number, uniform: number): number {
  return sampleToken(logits, 0, vocab, temperature, topK, topP, uniform, scratch);
}

/**
 * The nucleus by brute force: ids in the sampler's order (logit descending, id ascending: the
 * probability's order, which rounding can tie where the logits differ, as 0 and 1e-45 do), the
 * shortest prefix reaching p.
 */
function nucleus(logits: Float32Array, temperature: number, topP: number): Set<number> {
  const max = Math.max(...logits);
  const probs = Array.from(logits, (l) => Math.exp((l - max) / temperature));
  const total = probs.reduce((a, b) => a + b, 0);
  const ids = probs.map((_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
  const kept = new Set<number>();
  let mass = 0;
  for (const id of ids) {
    kept.add(id);
    mass += probs[id];
    if (mass >= topP * total) break;
  }
  return kept;
}

describe('sampling', () => {
  it('greedy (temperature 0) is the argmax, lowest id on ties', () => {
    fc.assert(
      fc.property(logitsArb, uniformArb, (logits, u) => {
        const expected = Array.from(logits).indexOf(Math.max(...logits));
        expect(draw(logits, 0, 0, 1, u)).toBe(expected);
        expect(argmax(logits, 0, vocab)).toBe(expected);
      }),
    );
  });

  it('top-k = 1 is greedy at any temperature', () => {
    fc.assert(
      fc.property(logitsArb, uniformArb, fc.double({ min: 0.1, max: 5, noNaN: true }), (logits, u, temperature) => {
        expect(draw(logits, temperature, 1, 1, u)).toBe(draw(logits, 0, 0, 1, u));
      }),
    );
  });

  it('the same uniform draw gives the same token', () => {
    fc.assert(
      fc.property(logitsArb, uniformArb, (logits, u) => {
        expect(draw(logits, 0.8, 10, 0.9, u)).toBe(draw(logits, 0.8, 10, 0.9, u));
      }),
    );
  });

  it('top-k only returns one of the k largest logits', () => {
    fc.assert(
      fc.property(logitsArb, uniformArb, fc.integer({ min: 1, max: vocab }), (logits, u, k) => {
        const token = draw(logits, 1, k, 1, u);
        const larger = Array.from(logits).filter((l) => l > logits[token]).length;
        expect(larger).toBeLessThan(k);
      }),
    );
  });

  it('top-p keeps to the nucleus', () => {
    // Found by fast-check: logits of 0 and the smallest subnormal, equal in probability.
    const tied = new Float32Array(vocab);
    for (let i = 40; i < vocab; i += 3) tied[i] = 1.401298464324817e-45;
    for (const u of [0, 0.3, 0.99]) expect(nucleus(tied, 1, 0.2).has(draw(tied, 1, 0, 0.2, u))).toBe(true);
    fc.assert(
      fc.property(logitsArb, uniformArb, fc.double({ min: 0.05, max: 0.99, noNaN: true }), (logits, u, p) => {
        expect(nucleus(logits, 1, p).has(draw(logits, 1, 0, p, u))).toBe(true);
      }),
    );
  });

  // The nucleus and the draw are found by selection, not by sorting: the token must be the one
  // a full sort walks to (logit descending, id ascending), ties included, unless the draw sits
  // within rounding of a boundary (the masses are summed in another order).
  it('top-p draws the token a full sort walks to, ties to the lower id', () => {
    const tiedLogits = fc.array(fc.integer({ min: -12, max: 12 }), { minLength: vocab, maxLength: vocab }).map((v) => Float32Array.from(v, (x) => x / 4));
    fc.assert(
      fc.property(fc.oneof(logitsArb, tiedLogits), uniformArb, fc.double({ min: 0.05, max: 0.99, noNaN: true }), fc.double({ min: 0.2, max: 3, noNaN: true }), (logits, u, p, temperature) => {
        const max = Math.max(...logits);
        const probs = Array.from(logits, (l) => Math.exp((l - max) / temperature));
        const ids = probs.map((_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
        const total = probs.reduce((a, b) => a + b, 0);
        const nearBoundary = (mass: number, threshold: number) => Math.abs(mass - threshold) <= 1e-9 * total;
        let mass = 0;
        let kept = 0;
        let close = false;
        while (kept < ids.length) {
          mass += probs[ids[kept++]];
          close ||= nearBoundary(mass, p * total);
          if (mass >= p * total) break;
        }
        const target = u * mass;
        let walked = 0;
        let expected = ids[kept - 1];
        for (const id of ids.slice(0, kept)) {
          walked += probs[id];
          close ||= nearBoundary(walked, target);
          if (walked > target) {
            expected = id;
            break;
          }
        }
        fc.pre(!close);
        expect(draw(logits, temperature, 0, p, u)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('top-p reaches every token of the nucleus and nothing else', () => {
    // Probabilities 0.5, 0.25, 0.125, ... : a nucleus of p = 0.8 is the first three tokens.
    const logits = new Float32Array(vocab).map((_, i) => -i * Math.LN2);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(draw(logits, 1, 0, 0.8, i / 1000));
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2]);
  });

  it('without filters, a draw follows the softmax', () => {
    const logits = new Float32Array(vocab).fill(-Infinity);
    logits[3] = Math.log(0.25);
    logits[9] = Math.log(0.75);
    expect(draw(logits, 1, 0, 1, 0.2)).toBe(3);
    expect(draw(logits, 1, 0, 1, 0.3)).toBe(9);
  });
});
