import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCpuBackend } from '../../src/engine/backend/cpu/cpu-backend.ts';
import type { Backend, ForwardBatch } from '../../src/engine/backend/backend.ts';
import { variantsFor } from '../../src/engine/backend/webgpu/pipelines.ts';
import { createWebGpuBackend, type WebGpuBackend } from '../../src/engine/backend/webgpu/webgpu-backend.ts';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { referenceLogits } from '../../src/engine/model/reference.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';
import { buildBatch, relativeError, type SeqSpec } from './cpu-batch-helpers.ts';
import { findAdapter } from '../../src/engine/backend/webgpu/device.ts';
import { noAdapter } from './webgpu-adapter.ts';

// The engine test's shapes, so lavapipe compiles (and caches) one set of pipelines for all files.
const config: ModelConfig = { name: 'tiny', vocabSize: 211, nCtx: 96, nEmbd: 32, nLayer: 2, nHead: 4, layerNormEps: 1e-5 };
const weights = syntheticWeights(config, 7);
const blockSize = 4;
const kv = { numBlocks: 32, blockSize };
// One backend of each kind for the file: creating a webgpu backend compiles every pipeline
// (slow on lavapipe with a cold shader cache). Each test writes its sequences' K/V from
// position 0 before reading them, so sharing the pool is safe.
let gpuBackend: Backend;
let cpuBackend: Backend;

beforeAll(async () => {
  if (noAdapter) return;
  // Sized for 8 tokens so the 35-token batch below makes it grow.
  gpuBackend = await createWebGpuBackend({ config, weights, kv, keepLogits: true, maxBatchTokens: 8 });
  cpuBackend = await createCpuBackend({ config, weights, kv, threads: 1, keepLogits: true });
}, 600_000);

afterAll(async () => {
  await gpuBackend?.close();
  await cpuBackend?.close();
});

const webgpu = async (): Promise<Backend> => gpuBackend;
const cpu = async (): Promise<Backend> => cpuBackend;

function tokens(n: number, salt: number): number[] {
  return Array.from({ length: n }, (_, i) => (i * 37 + salt * 11 + 3) % config.vocabSize);
}

const a = tokens(17, 2);
const b = tokens(6, 3);
const c = tokens(4, 4);
const d = tokens(9, 5);
const blocks = { a: [0, 7, 3, 12, 20], b: [1, 8], c: [4, 11], d: [6, 15, 2] };
const step1: SeqSpec[] = [
  { tokens: a.slice(0, 10), start: 0, blocks: blocks.a, sample: false },
  { tokens: b.slice(0, 5), start: 0, blocks: blocks.b },
  { tokens: c.slice(0, 3), start: 0, blocks: blocks.c },
];
// b and c decode, a runs a chunk after its cached 10-token prefix, d prefills without sampling.
const step2: SeqSpec[] = [
  { tokens: b.slice(5), start: 5, blocks: blocks.b },
  { tokens: c.slice(3), start: 3, blocks: blocks.c },
  { tokens: a.slice(10), start: 10, blocks: blocks.a },
  { tokens: d.slice(0, 5), start: 0, blocks: blocks.d, sample: false },
];

describe.skipIf(noAdapter)('webgpu backend forward', () => {
  it('matches the float64 reference and the cpu backend on a ragged batch after a cached prefix', async () => {
    const gpu = await webgpu();
    const host = await cpu();
    const batches: ForwardBatch[] = [buildBatch(step1, blockSize), buildBatch(step2, blockSize)];
    const gpuFirst = await gpu.step(batches[0]);
    const cpuFirst = await host.step(batches[0]);
    expect(Array.from(gpuFirst.tokens)).toEqual(Array.from(cpuFirst.tokens));
    const result = await gpu.step(batches[1]);
    const expected = await host.step(batches[1]);
    const v = config.vocabSize;
    expect(result.tokens.length).toBe(3);
    const refs = [
      [referenceLogits(config, weights, b), 5],
      [referenceLogits(config, weights, c), 3],
      [referenceLogits(config, weights, a), 16],
    ] as const;
    refs.forEach(([ref, last], row) => {
      expect(relativeError(result.logits!, row * v, ref, last * v, v)).toBeLessThan(1e-3);
      expect(relativeError(result.logits!, row * v, Float64Array.from(expected.logits!), row * v, v)).toBeLessThan(1e-3);
    });
    expect(Array.from(result.tokens)).toEqual(Array.from(expected.tokens));
  });

  it('grows its buffers for a batch bigger than it was sized for', async () => {
    const gpu = await webgpu();
    const seqs = [0, 1, 2, 3, 4].map((i) => ({ tokens: tokens(7, 10 + i), start: 0, blocks: [i * 2, i * 2 + 1] }));
    const result = await gpu.step(buildBatch(seqs, blockSize));
    const v = config.vocabSize;
    seqs.forEach((s, i) => {
      expect(relativeError(result.logits!, i * v, referenceLogits(config, weights, s.tokens), 6 * v, v)).toBeLessThan(1e-3);
    });
  });

  it('gives the same greedy tokens as the cpu backend over a generation of several sequences', async () => {
    const gpu = await webgpu();
    const host = await cpu();
    const prompts = [tokens(5, 20), tokens(9, 21), tokens(3, 22)];
    const tables = [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14]];
    const outputs = await Promise.all([gpu, host].map(async (be) => {
      const seqs = prompts.map((p) => [...p]);
      const generated: number[][] = seqs.map(() => []);
      let specs: SeqSpec[] = seqs.map((s, i) => ({ tokens: s, start: 0, blocks: tables[i] }));
      for (let step = 0; step < 6; step++) {
        const result = await be.step(buildBatch(specs, blockSize));
        specs = specs.map((spec, i) => {
          const next = result.tokens[i];
          generated[i].push(next);
          return { tokens: [next], start: spec.start + spec.tokens.length, blocks: spec.blocks };
        });
      }
      return generated;
    }));
    expect(outputs[0]).toEqual(outputs[1]);
  });

  it('splits the token table into chunks (as gpt2 needs on lavapipe) with the same tokens and logits', async () => {
    // 128 columns per chunk: 2 chunks for 211 ids, the second one padded (each chunk is 4 more pipelines to compile).
    const split = await createWebGpuBackend({ config, weights, kv, keepLogits: true, tokenTableChunkBytes: 128 * config.nEmbd * 4 });
    try {
      const seqs = [0, 1, 2].map((i) => ({ tokens: tokens(6, 30 + i).map((t, j) => (j === 0 ? 210 - i * 90 : t)), start: 0, blocks: [i * 2, i * 2 + 1] }));
      const result = await split.step(buildBatch(seqs, blockSize));
      const v = config.vocabSize;
      seqs.forEach((s, i) => {
        expect(relativeError(result.logits!, i * v, referenceLogits(config, weights, s.tokens), 5 * v, v)).toBeLessThan(1e-3);
      });
    } finally {
      await split.close();
    }
  }, 600_000);

  it('runs texture weights and subgroup matmuls by default on a software adapter with subgroups', async (test) => {
    const gpu = (await webgpu()) as WebGpuBackend;
    if (!gpu.software || !(await findAdapter('any'))?.features.has('subgroups')) test.skip('not a software adapter with subgroups');
    expect(gpu.variants.weights).toBe('texture');
    expect(gpu.variants.tiledFromRows).toBe(Infinity);
  });

  it('runs the software buffer variant (no texture weights) to the same logits', async () => {
    const buffers = await createWebGpuBackend({ config, weights, kv, keepLogits: true, kernelVariants: 'software-buffers' });
    try {
      expect(buffers.variants.weights).toBe('buffer');
      // 11 tokens: the 8-row block and a second, partly filled one; two sequences sample.
      const seqs = [
        { tokens: tokens(11, 50), start: 0, blocks: [3, 4, 5] },
        { tokens: tokens(2, 51), start: 0, blocks: [9] },
      ];
      const result = await buffers.step(buildBatch(seqs, blockSize));
      const v = config.vocabSize;
      seqs.forEach((s, i) => {
        expect(relativeError(result.logits!, i * v, referenceLogits(config, weights, s.tokens), (s.tokens.length - 1) * v, v)).toBeLessThan(1e-3);
      });
    } finally {
      await buffers.close();
    }
  }, 600_000);

  for (const matmuls of ['tiled GEMM', 'split-K'] as const) {
    it(`runs the GPU kernel variants (workgroup LayerNorm, attention and argmax, ${matmuls} prefill, split-K decode) to the same logits`, async () => {
      // At this model's size the tiled GEMM never has enough tiles to pay: forced for the first run.
      const hardware = await createWebGpuBackend({ config, weights, kv, keepLogits: true, kernelVariants: { ...variantsFor('hardware', undefined, false), ...(matmuls === 'tiled GEMM' ? { tiledFromTiles: 0 } : {}) } });
      try {
        // 70 tokens: across two 64-row tiles, and nine 8-row blocks of the split-K kernel.
        const prompt = tokens(70, 40);
        const blocks = Array.from({ length: 18 }, (_, i) => 31 - i);
        const result = await hardware.step(buildBatch([{ tokens: prompt, start: 0, blocks }], blockSize));
        const v = config.vocabSize;
        expect(relativeError(result.logits!, 0, referenceLogits(config, weights, prompt), 69 * v, v)).toBeLessThan(1e-3);
        // Then one decode token: every matmul on the split-K kernel, attention over 71 keys.
        const decoded = [...prompt, result.tokens[0]];
        const next = await hardware.step(buildBatch([{ tokens: [result.tokens[0]], start: 70, blocks }], blockSize));
        expect(relativeError(next.logits!, 0, referenceLogits(config, weights, decoded), 70 * v, v)).toBeLessThan(1e-3);
      } finally {
        await hardware.close();
      }
    }, 600_000);
  }

  it('refuses a malformed batch with the cpu backend\'s message', async () => {
    const gpu = await webgpu();
    const batch = buildBatch([{ tokens: tokens(3, 1), start: 0, blocks: [2] }], blockSize);
    batch.slotMapping[1] = 0;
    await expect(gpu.step(batch)).rejects.toThrow(/webgpu backend: invalid batch: slotMapping\[1\] = 0/);
  });
});
