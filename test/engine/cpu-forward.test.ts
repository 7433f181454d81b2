import { afterAll, describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../src/engine/backend/cpu/cpu-backend.ts';
import type { KernelKind } from '../../src/engine/backend/cpu/thread-state.ts';
import type { Backend } from '../../src/engine/backend/backend.ts';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { referenceLogits } from '../../src/engine/model/reference.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';
import { buildBatch, relativeError } from './cpu-batch-helpers.ts';

// Odd sizes on purpose: vocab and widths that are not multiples of the 4x4 register block.
const config: ModelConfig = { name: 'test-tiny', vocabSize: 101, nCtx: 64, nEmbd: 24, nLayer: 2, nHead: 3, layerNormEps: 1e-5 };
const weights = syntheticWeights(config, 7);
const blockSize = 4;
const backends: Backend[] = [];

async function backend(threads: number, kernels: KernelKind = 'wasm', maxBatchTokens?: number): Promise<Backend> {
  const b = await createCpuBackend({ config, weights, kv: { numBlocks: 32, blockSize }, threads, keepLogits: true, maxBatchTokens, kernels });
  backends.push(b);
  return b;
}

afterAll(async () => {
  await Promise.all(backends.map((b) => b.close()));
});

function tokens(n: number, salt: number): number[] {
  return Array.from({ length: n }, (_, i) => (i * 37 + salt * 11 + 3) % config.vocabSize);
}

describe('cpu backend forward', () => {
  for (const [threads, kernels] of [[1, 'js'], [2, 'js'], [1, 'wasm'], [2, 'wasm']] as const) {
    it(`matches the float64 reference on one sequence (${kernels} kernels, ${threads} thread(s))`, async () => {
      const be = await backend(threads, kernels);
      const prompt = tokens(11, 1);
      const result = await be.step(buildBatch([{ tokens: prompt, start: 0, blocks: [5, 2, 9] }], blockSize));
      const ref = referenceLogits(config, weights, prompt);
      expect(relativeError(result.logits!, 0, ref, 10 * config.vocabSize, config.vocabSize)).toBeLessThan(1e-4);
      expect(result.tokens.length).toBe(1);
    });

    it(`matches the reference on a ragged batch: a chunk after a cached prefix plus decodes (${kernels} kernels, ${threads} thread(s))`, async () => {
      const be = await backend(threads, kernels);
      const a = tokens(17, 2);
      const b = tokens(6, 3);
      const c = tokens(4, 4);
      const d = tokens(9, 5);
      const blocks = { a: [0, 7, 3, 12, 20], b: [1, 8], c: [4, 11], d: [6, 15, 2] };
      // Step 1: prefill a's first 10 tokens (no sample: mid-prompt), and all of b and c but their last token.
      await be.step(
        buildBatch(
          [
            { tokens: a.slice(0, 10), start: 0, blocks: blocks.a, sample: false },
            { tokens: b.slice(0, 5), start: 0, blocks: blocks.b },
            { tokens: c.slice(0, 3), start: 0, blocks: blocks.c },
          ],
          blockSize,
        ),
      );
      // Step 2: b and c decode one token, a runs a 7-token chunk after its cached 10, d prefills a
      // chunk without sampling.
      const result = await be.step(
        buildBatch(
          [
            { tokens: b.slice(5), start: 5, blocks: blocks.b },
            { tokens: c.slice(3), start: 3, blocks: blocks.c },
            { tokens: a.slice(10), start: 10, blocks: blocks.a },
            { tokens: d.slice(0, 5), start: 0, blocks: blocks.d, sample: false },
          ],
          blockSize,
        ),
      );
      const v = config.vocabSize;
      expect(result.tokens.length).toBe(3);
      expect(relativeError(result.logits!, 0, referenceLogits(config, weights, b), 5 * v, v)).toBeLessThan(1e-4);
      expect(relativeError(result.logits!, v, referenceLogits(config, weights, c), 3 * v, v)).toBeLessThan(1e-4);
      expect(relativeError(result.logits!, 2 * v, referenceLogits(config, weights, a), 16 * v, v)).toBeLessThan(1e-4);
    });
  }

  it('paged attention equals contiguous attention (shuffled block ids give the same logits)', async () => {
    const prompt = tokens(23, 6);
    const contiguous = await (await backend(2)).step(buildBatch([{ tokens: prompt, start: 0, blocks: [0, 1, 2, 3, 4, 5] }], blockSize));
    const shuffled = await (await backend(2)).step(buildBatch([{ tokens: prompt, start: 0, blocks: [17, 3, 29, 8, 0, 21] }], blockSize));
    expect(Array.from(shuffled.logits!)).toEqual(Array.from(contiguous.logits!));
  });

  it('is batch-invariant: a sequence gets the same bits alone or among others', async () => {
    const be = await backend(2);
    const prompt = tokens(9, 12);
    const alone = await be.step(buildBatch([{ tokens: prompt, start: 0, blocks: [0, 1, 2] }], blockSize));
    const others = [3, 4, 5].map((i) => ({ tokens: tokens(i + 2, i), start: 0, blocks: [i * 3, i * 3 + 1, i * 3 + 2] }));
    const mixed = await be.step(buildBatch([others[0], { tokens: prompt, start: 0, blocks: [20, 21, 22] }, others[1], others[2]], blockSize));
    const v = config.vocabSize;
    expect(Array.from(mixed.logits!.subarray(v, 2 * v))).toEqual(Array.from(alone.logits!));
  });

  it('refuses to step after close', async () => {
    const be = await createCpuBackend({ config, weights, kv: { numBlocks: 4, blockSize }, threads: 2 });
    await be.close();
    await be.close();
    await expect(be.step(buildBatch([{ tokens: [1], start: 0, blocks: [0] }], blockSize))).rejects.toThrow(/after close/);
  });

  it('grows its buffers for a batch bigger than it was sized for, with helpers', async () => {
    const be = await backend(2, 'wasm', 4);
    const seqs = [0, 1, 2, 3, 4].map((i) => ({ tokens: tokens(7, 10 + i), start: 0, blocks: [i * 2, i * 2 + 1] }));
    const result = await be.step(buildBatch(seqs, blockSize));
    const v = config.vocabSize;
    seqs.forEach((s, i) => {
      expect(relativeError(result.logits!, i * v, referenceLogits(config, weights, s.tokens), 6 * v, v)).toBeLessThan(1e-4);
    });
  });

  it('falls back to the JS kernels when the head size is not a multiple of 4', async () => {
    const odd: ModelConfig = { ...config, nEmbd: 18, nHead: 3 };
    const oddWeights = syntheticWeights(odd, 2);
    const be = await createCpuBackend({ config: odd, weights: oddWeights, kv: { numBlocks: 8, blockSize }, threads: 1, keepLogits: true });
    backends.push(be);
    expect(be.device).toContain('JS kernels');
    const prompt = tokens(6, 9);
    const result = await be.step(buildBatch([{ tokens: prompt, start: 0, blocks: [3, 1] }], blockSize));
    const ref = referenceLogits(odd, oddWeights, prompt);
    expect(relativeError(result.logits!, 0, ref, 5 * odd.vocabSize, odd.vocabSize)).toBeLessThan(1e-4);
  });

  it('refuses a batch whose slot mapping disagrees with its block table', async () => {
    const be = await backend(1);
    const batch = buildBatch([{ tokens: tokens(3, 1), start: 0, blocks: [2] }], blockSize);
    batch.slotMapping[1] = 0;
    await expect(be.step(batch)).rejects.toThrow(/slotMapping\[1\] = 0/);
  });
});
