import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attention as jsAttention, softmaxExp } from '../../src/engine/backend/cpu/attention.ts';
import { writeKv } from '../../src/engine/backend/cpu/kv-write.ts';
import { gelu as jsGelu } from '../../src/engine/backend/cpu/gelu.ts';
import { matmul as jsMatmul } from '../../src/engine/backend/cpu/matmul.ts';
import { argmax, createSampleScratch, expRow, sampleToken } from '../../src/engine/backend/cpu/sample.ts';
import { wasmKernels, wasmKernelsSupported } from '../../src/engine/backend/cpu/wasm/load-kernels.ts';
import { wasm } from '../../src/engine/backend/cpu/wasm/webassembly.ts';

const memory = new wasm.Memory({ initial: 16, maximum: 16, shared: true });
// Assembles kernels.wat (or finds it in the cache): a failure here fails every test below.
const supported = await wasmKernelsSupported();
const kernels = wasmKernels(memory);
let next = 0;
function alloc(values: ArrayLike<number>): Float32Array {
  const view = new Float32Array(memory.buffer, next, values.length);
  view.set(values);
  next += Math.ceil((4 * values.length) / 64) * 64;
  return view;
}

/** Room for `count` int32s after the floats allocated so far; returns its byte offset. */
function allocInts(count: number): number {
  const offset = next;
  next += Math.ceil((4 * count) / 64) * 64;
  return offset;
}

function maxRelativeDiff(a: Float32Array, b: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1e-3, Math.abs(b[i])));
  return worst;
}

describe('wasm kernels', () => {
  it('assemble from kernels.wat on this machine', () => {
    expect(supported).toBe(true);
  });

  it('gelu agrees with the JS version, extremes included', () => {
    const values = [-100, -20, -9.5, -3, -1, -0.1, 0, 1e-6, 0.5, 2, 7.25, 30, 100, 1e4, ...Array.from({ length: 50 }, (_, i) => (i - 25) / 5)];
    while (values.length % 8) values.push(0.3);
    next = 0;
    const y = alloc(values);
    const expected = Float32Array.from(values);
    kernels.gelu(y, 2, values.length / 2, 0, values.length / 2);
    jsGelu(expected, 2, values.length / 2, 0, values.length / 2);
    expect(maxRelativeDiff(y, expected)).toBeLessThan(1e-5);
  });

  it('softmax exponentials agree with Math.exp at any length', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -60, max: 60, noNaN: true }), { minLength: 1, maxLength: 37 }), (values) => {
        next = 0;
        const s = alloc(values);
        const expected = Float32Array.from(values);
        const sum = kernels.softmaxExp(s, values.length);
        const expectedSum = softmaxExp(expected, values.length);
        expect(maxRelativeDiff(s, expected)).toBeLessThan(1e-5);
        expect(Math.abs(sum - expectedSum) / expectedSum).toBeLessThan(1e-5);
      }),
    );
  });

  it('argmax agrees with the JS version, lowest index on ties', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 41 }), fc.nat(3), (values, offset) => {
        next = 0;
        const logits = alloc([...Array(offset).fill(99), ...values]);
        expect(kernels.argmax(logits, offset, values.length)).toBe(argmax(logits, offset, values.length));
      }),
    );
  });

  it('a row of sampling weights agrees with Math.exp at any length and temperature; -inf weighs 0', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ min: -40, max: 40, noNaN: true }), fc.constant(-Infinity)), { minLength: 1, maxLength: 37 }),
        fc.nat(3),
        fc.double({ min: 0.05, max: 4, noNaN: true }),
        (values, offset, temperature) => {
          fc.pre(values.some((v) => v > -Infinity));
          next = 0;
          const logits = alloc([...Array(offset).fill(99), ...values]);
          const weights = alloc(new Array(values.length).fill(7));
          const expected = new Float64Array(values.length);
          kernels.expRow(logits, offset, values.length, temperature, weights);
          expRow(logits, offset, values.length, temperature, expected);
          const max = Math.max(...values);
          for (let i = 0; i < values.length; i++) {
            // e^x below a normal float is 0 here, a denormal or 0 in Math.exp; in f32, x itself
            // carries a relative error of ~1e-7, which e^x turns into ~1e-7 |x|.
            const x = (values[i] - max) / temperature;
            if (expected[i] < 1e-37) expect(weights[i]).toBeLessThan(1e-37);
            else expect(Math.abs(weights[i] - expected[i]) / expected[i]).toBeLessThan(1e-6 * (1 + Math.abs(x)));
          }
          values.forEach((v, i) => v === -Infinity && expect(weights[i]).toBe(0));
        },
      ),
    );
  });

  it('sampling with the kernel weights draws what the JS weights draw, away from a boundary', () => {
    const vocab = 2_000;
    next = 0;
    const logits = alloc(Array.from({ length: 3 * vocab }, (_, i) => Math.sin(i * 12.9898) * 6));
    const fast = createSampleScratch(vocab, { expRow: kernels.expRow, probs: alloc(new Array(vocab).fill(0)) });
    const plain = createSampleScratch(vocab);
    let differ = 0;
    for (let draw = 0; draw < 300; draw++) {
      const [temperature, topK, topP] = [[1, 0, 1], [0.7, 0, 0.9], [1.3, 40, 0.8]][draw % 3];
      const uniform = (draw * 0.618034) % 1;
      const row = draw % 3;
      if (sampleToken(logits, row * vocab, vocab, temperature, topK, topP, uniform, fast) !== sampleToken(logits, row * vocab, vocab, temperature, topK, topP, uniform, plain)) differ++;
    }
    // f32 weights against f64 ones move a boundary by ~1e-7 of the mass: no draw of 300 lands there.
    expect(differ).toBe(0);
  });

  it('matmul agrees with the JS version on ragged shapes, overwriting and accumulating', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 40 }), fc.boolean(), (rows, k4, n, accumulate) => {
        const k = 4 * k4;
        next = 0;
        const rand = (count: number, salt: number): number[] => Array.from({ length: count }, (_, i) => Math.sin(i * 12.9898 + salt) * 0.5);
        const x = alloc(rand(rows * k, 1));
        const w = alloc(rand(n * k, 2));
        const b = alloc(rand(n, 3));
        const y = alloc(rand(rows * n, 4));
        const expected = Float32Array.from(y);
        kernels.matmul(x, w, b, y, rows, k, n, 0, n, accumulate);
        jsMatmul(x, w, b, expected, rows, k, n, 0, n, accumulate);
        expect(maxRelativeDiff(y, expected)).toBeLessThan(1e-4);
      }),
    );
  });

  it('attention agrees with the JS version over a paged pool, for any range of (token, head) items', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 50 }), fc.nat(1000), (tokens, context, salt) => {
        // One sequence whose last `tokens` tokens are computed now, after context - tokens cached ones.
        const nHead = 2, hd = 8, c = nHead * hd, blockSize = 10; // blocks of two groups of four positions and two more
        const length = Math.max(context, tokens);
        const blocks = Math.ceil(length / blockSize);
        const table = Array.from({ length: blocks }, (_, i) => (blocks - 1 - i + salt) % blocks); // blocks out of order
        next = 0;
        const rand = (count: number, seed: number): number[] => Array.from({ length: count }, (_, i) => Math.sin(i * 12.9898 + seed + salt) * 0.7);
        const all = alloc(rand(length * 3 * c, 1)); // qkv of every position, the last `tokens` rows computed now
        const kPool = alloc(new Array(blocks * blockSize * c).fill(0));
        const vPool = alloc(new Array(blocks * blockSize * c).fill(0));
        const slots = Int32Array.from({ length }, (_, p) => table[Math.floor(p / blockSize)] * blockSize + (p % blockSize));
        writeKv(all, slots, length, c, nHead, blockSize, kPool, vPool, 0, 0, 3 * c);
        const qkv = alloc(all.subarray((length - tokens) * 3 * c));
        const tokenSeq = new Int32Array(memory.buffer, allocInts(tokens), tokens);
        const positions = new Int32Array(memory.buffer, allocInts(tokens), tokens);
        const blockTables = new Int32Array(memory.buffer, allocInts(blocks), blocks);
        tokenSeq.fill(0);
        positions.set(Array.from({ length: tokens }, (_, t) => length - tokens + t));
        blockTables.set(table);
        const scores = alloc(new Array(length).fill(0));
        const out = alloc(new Array(tokens * c).fill(0));
        const expected = new Float32Array(tokens * c);
        const items = tokens * nHead;
        const first = salt % items;
        kernels.attention(qkv, kPool, vPool, 0, out, first, items, tokenSeq, positions, blockTables, blocks, blockSize, c, nHead, scores);
        jsAttention(qkv, kPool, vPool, 0, expected, first, items, tokenSeq, positions, blockTables, blocks, blockSize, c, nHead, new Float32Array(length));
        expect(maxRelativeDiff(out, expected)).toBeLessThan(1e-4);
      }),
    );
  });

  it('matmul gives a row the same bits alone as in any batch, and for any split of the columns into multiples of 8', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 60 }), fc.nat(60), (rows, k4, n, cut) => {
        const k = 4 * k4;
        const split = Math.min(n, 8 * Math.floor(cut / 8));
        next = 0;
        const rand = (count: number, salt: number): number[] => Array.from({ length: count }, (_, i) => Math.sin(i * 78.233 + salt) * 0.5);
        const x = alloc(rand(rows * k, 5));
        const w = alloc(rand(n * k, 6));
        const b = alloc(rand(n, 7));
        const batched = alloc(new Array(rows * n).fill(0));
        kernels.matmul(x, w, b, batched, rows, k, n, 0, split, false);
        kernels.matmul(x, w, b, batched, rows, k, n, split, n, false);
        const alone = alloc(new Array(n).fill(0));
        for (let t = 0; t < rows; t++) {
          kernels.matmul(x.subarray(t * k, (t + 1) * k), w, b, alone, 1, k, n, 0, n, false);
          expect(Array.from(alone)).toEqual(Array.from(batched.subarray(t * n, (t + 1) * n)));
        }
      }),
    );
  });
});
