// Each WGSL kernel against the CPU backend's version of the same op, on random inputs.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gelu } from '../../src/engine/backend/cpu/gelu.ts';
import { layerNormRow } from '../../src/engine/backend/cpu/layernorm.ts';
import { createSampleScratch, sampleToken } from '../../src/engine/backend/cpu/sample.ts';
import { ARGMAX_SPAN, ARGMAX_WORKGROUP, argmaxPartialCount, argmaxPartialsWgsl } from '../../src/engine/backend/webgpu/shaders/argmax.wgsl.ts';
import { attentionGrid, attentionWgsl } from '../../src/engine/backend/webgpu/shaders/attention.wgsl.ts';
import { embedWgsl } from '../../src/engine/backend/webgpu/shaders/embed.wgsl.ts';
import type { Epilogue } from '../../src/engine/backend/webgpu/shaders/epilogue.wgsl.ts';
import { layerNormWgsl, LAYERNORM_THREAD_WORKGROUP } from '../../src/engine/backend/webgpu/shaders/layernorm.wgsl.ts';
import { matmulTiledWgsl } from '../../src/engine/backend/webgpu/shaders/matmul-tiled.wgsl.ts';
import { matmulSplitKWgsl, splitKColumns } from '../../src/engine/backend/webgpu/shaders/matmul-splitk.wgsl.ts';
import { SUBGROUP_MATMUL_WORKGROUP, matmulSubgroupWgsl } from '../../src/engine/backend/webgpu/shaders/matmul-subgroup.wgsl.ts';
import { MATMUL_WORKGROUP, matmulWgsl, type MatmulShape } from '../../src/engine/backend/webgpu/shaders/matmul.wgsl.ts';
import { sampleWgsl } from '../../src/engine/backend/webgpu/shaders/sample.wgsl.ts';
import { maxAbsDiff, randomArray, runKernel, testGpu, type KernelRun } from './webgpu-kernel-harness.ts';
import { noAdapter } from './webgpu-adapter.ts';

const SLOW = 600_000; // a cold lavapipe shader cache compiles each kernel at its first dispatch

beforeAll(async () => {
  if (!noAdapter) await testGpu();
}, SLOW);

afterAll(async () => {
  if (!noAdapter) (await testGpu()).device.destroy();
});

describe.skipIf(noAdapter)('webgpu kernels vs the cpu backend', () => {
  for (const storage of ['buffer', 'texture'] as const) {
    it(`embed fills exactly the rows whose token lies in its chunk (table in a ${storage})`, async () => {
      const c = 8;
      const chunk = { chunkStart: 3, chunkSize: 5, chunkStride: 8 };
      const wteT = randomArray(c * chunk.chunkStride, 1);
      const wpe = randomArray(6 * c, 2);
      const tokenIds = new Uint32Array([3, 0, 7, 9, 5]);
      const positions = new Uint32Array([0, 1, 2, 3, 5]);
      const x = new Float32Array(tokenIds.length * c).fill(42);
      const [, , , , out] = await runKernel({
        code: embedWgsl({ c, ...chunk }, storage),
        step: { tokens: tokenIds.length },
        bindings: [{ data: tokenIds }, { data: positions }, { data: wteT, texture: storage === 'texture' ? { width: chunk.chunkStride / 4 } : undefined }, { data: wpe }, { data: x, write: true }],
        grid: [1],
      });
      tokenIds.forEach((tok, t) => {
        for (let j = 0; j < c; j++) {
          const inChunk = tok >= 3 && tok < 8;
          const expected = inChunk ? wteT[j * chunk.chunkStride + tok - 3] + wpe[positions[t] * c + j] : 42;
          expect(out[t * c + j]).toBeCloseTo(expected, 6);
        }
      });
    }, SLOW);
  }

  // Widths: fewer than a workgroup's lanes; several elements a lane, the last lanes past the row's
  // end; GPT-2's 768, a whole number of elements a lane (no bound check generated).
  const layerNormCases = [
    { variant: 'thread', c: 40 },
    { variant: 'workgroup', c: 40 },
    { variant: 'workgroup', c: 600 },
    { variant: 'workgroup', c: 768 },
  ] as const;
  for (const { variant, c } of layerNormCases) {
    it(`layernorm (${variant}, ${c} wide) over token rows and over the sampled rows`, async () => {
      const tokens = 6;
      const x = randomArray(tokens * c, 3, -2, 3);
      const gamma = randomArray(c, 4, 0.5, 1.5);
      const beta = randomArray(c, 5);
      const grid = (n: number): [number] => [variant === 'thread' ? Math.ceil(n / LAYERNORM_THREAD_WORKGROUP) : n];
      const [, , , y] = await runKernel({
        code: layerNormWgsl({ c, eps: 1e-5, rows: 'tokens', variant }),
        step: { tokens },
        bindings: [{ data: x }, { data: gamma }, { data: beta }, { data: new Float32Array(tokens * c), write: true }],
        grid: grid(tokens),
      });
      const expected = new Float32Array(tokens * c);
      for (let t = 0; t < tokens; t++) layerNormRow(x, t, expected, t, gamma, beta, c, 1e-5);
      expect(maxAbsDiff(y, expected)).toBeLessThan(1e-5);

      // Sequences end at tokens 1, 3 and 5; rows sample sequences 2 and 0.
      const queryStart = new Uint32Array([0, 2, 4, 6]);
      const sampleSeqs = new Uint32Array([2, 0]);
      const [, , , finalOut] = await runKernel({
        code: layerNormWgsl({ c, eps: 1e-5, rows: 'sampled', variant }),
        step: { tokens, seqs: 3, rows: 2 },
        bindings: [{ data: x }, { data: gamma }, { data: beta }, { data: new Float32Array(2 * c), write: true }, { data: queryStart }, { data: sampleSeqs }],
        grid: grid(2),
      });
      const finalExpected = new Float32Array(2 * c);
      layerNormRow(x, 5, finalExpected, 0, gamma, beta, c, 1e-5);
      layerNormRow(x, 1, finalExpected, 1, gamma, beta, c, 1e-5);
      expect(maxAbsDiff(finalOut, finalExpected)).toBeLessThan(1e-5);
    }, SLOW);
  }

  const matmulCases: { kernel: 'x1' | 'x4' | 'x8' | 'tiled' | 's1' | 's8' | 's16' | 'k1' | 'k4' | 'k8'; rows: number; epilogue: Epilogue; norm?: true }[] = [
    { kernel: 'x1', rows: 3, epilogue: 'bias' },
    { kernel: 'x4', rows: 6, epilogue: 'bias-gelu' },
    { kernel: 'x8', rows: 11, epilogue: 'bias-residual' },
    { kernel: 'x8', rows: 5, epilogue: 'none' },
    { kernel: 'tiled', rows: 70, epilogue: 'bias-residual' },
    { kernel: 'tiled', rows: 9, epilogue: 'bias-gelu' },
    // The subgroup kernel with texture weights (software adapters), the variant lavapipe runs.
    { kernel: 's1', rows: 2, epilogue: 'bias' },
    { kernel: 's8', rows: 8, epilogue: 'bias-gelu' },
    { kernel: 's16', rows: 21, epilogue: 'bias-residual' },
    { kernel: 's8', rows: 40, epilogue: 'none' },
    // The split-K kernel (GPUs, few rows): 75 vec4 columns give 2 per workgroup and 128 slices
    // of a 9-deep K, so most slices are empty; rows past the block's end are not stored.
    { kernel: 'k1', rows: 3, epilogue: 'bias-residual' },
    { kernel: 'k4', rows: 4, epilogue: 'none' },
    { kernel: 'k8', rows: 11, epilogue: 'bias-gelu' },
    // The QKV projection's epilogue also stores K and V at each row's slot of the paged pool.
    { kernel: 'x1', rows: 3, epilogue: 'bias-kv' },
    { kernel: 'x4', rows: 6, epilogue: 'bias-kv' },
    { kernel: 'tiled', rows: 70, epilogue: 'bias-kv' },
    { kernel: 's8', rows: 9, epilogue: 'bias-kv' },
    { kernel: 'k4', rows: 5, epilogue: 'bias-kv' },
    // The split-K kernel applying the LayerNorm before it to X as it reads it (decode steps on GPUs).
    { kernel: 'k1', rows: 1, epilogue: 'bias-kv', norm: true },
    { kernel: 'k4', rows: 3, epilogue: 'bias-gelu', norm: true },
    { kernel: 'k8', rows: 11, epilogue: 'bias-kv', norm: true },
  ];
  for (const { kernel, rows, epilogue, norm } of matmulCases) {
    it(`matmul ${kernel}, ${rows} rows, epilogue ${epilogue}${norm ? ', LayerNorm fused' : ''}, into a strided output`, async (test) => {
      const subgroupSize = (await testGpu()).subgroupSize;
      if (kernel.startsWith('s') && subgroupSize === undefined) test.skip('the adapter has no subgroups');
      // 300 columns: several workgroups and tiles; k 36: not a multiple of the tiled kernel's 16.
      const k = 36;
      const n = 300;
      const ldy = 312;
      const yOffset = 8;
      const shape: MatmulShape = { k, n, ldy, yOffset, rows: 'tokens', epilogue, ...(norm ? { norm: { eps: 1e-5 } } : {}) };
      // Rows off centre, as the residual stream is, so a LayerNorm that skipped the mean would show.
      const x = randomArray(rows * k, 6, norm ? 1 : -1, norm ? 4 : 1);
      const gamma = randomArray(k, 16, 0.5, 1.5);
      const beta = randomArray(k, 17);
      const w = randomArray(k * n, 7);
      const bias = randomArray(n, 8);
      const y0 = randomArray(rows * ldy, 9);
      const subgroup = kernel.startsWith('s');
      // For the subgroup kernel W is a texture of k rows of n/4 texels: the same bytes.
      const bindings: KernelRun['bindings'] = [{ data: x }, { data: w, texture: subgroup ? { width: n / 4 } : undefined }, { data: y0, write: true }];
      if (epilogue !== 'none') bindings.push({ data: bias, texture: undefined });
      // K and V land at each row's slot (in reverse order) of a pool with slots to spare, whose other slots keep their values.
      const c = n / 3;
      const slots = Uint32Array.from({ length: rows }, (_, m) => rows + 3 - m);
      const pools = [randomArray((rows + 4) * c, 14), randomArray((rows + 4) * c, 15)];
      if (epilogue === 'bias-kv') bindings.push({ data: slots }, { data: pools[0], write: true }, { data: pools[1], write: true });
      if (norm) bindings.push({ data: gamma }, { data: beta });
      const tm = Number(kernel.slice(1));
      const splitK = kernel.startsWith('k');
      const code = kernel === 'tiled' ? matmulTiledWgsl(shape) : subgroup ? matmulSubgroupWgsl(shape, tm, subgroupSize!) : splitK ? matmulSplitKWgsl(shape, tm) : matmulWgsl(shape, tm);
      const columnsPerWorkgroup = subgroup ? SUBGROUP_MATMUL_WORKGROUP : splitK ? splitKColumns(n / 4) : MATMUL_WORKGROUP;
      const grid: [number, number] = kernel === 'tiled' ? [Math.ceil(n / 64), Math.ceil(rows / 64)] : [Math.ceil(n / 4 / columnsPerWorkgroup), Math.ceil(rows / tm)];
      const [, , y, , , kPool, vPool] = await runKernel({ code, step: { tokens: rows }, bindings, grid });
      const expected = Float32Array.from(y0);
      const xIn = new Float32Array(x);
      if (norm) for (let m = 0; m < rows; m++) layerNormRow(x, m, xIn, m, gamma, beta, k, 1e-5);
      for (let m = 0; m < rows; m++) {
        for (let j = 0; j < n; j++) {
          let dot = 0;
          for (let i = 0; i < k; i++) dot += xIn[m * k + i] * w[i * n + j];
          const o = m * ldy + yOffset + j;
          if (epilogue === 'none') expected[o] = dot;
          else if (epilogue === 'bias') expected[o] = dot + bias[j];
          else if (epilogue === 'bias-residual') expected[o] += dot + bias[j];
          else expected[o] = dot + bias[j];
        }
      }
      if (epilogue === 'bias-gelu') {
        for (let m = 0; m < rows; m++) gelu(expected.subarray(m * ldy + yOffset, m * ldy + yOffset + n), 1, n, 0, n);
      }
      expect(maxAbsDiff(y, expected)).toBeLessThan(1e-4);
      if (epilogue !== 'bias-kv') return;
      const [kExpected, vExpected] = pools.map((pool) => Float32Array.from(pool));
      slots.forEach((slot, m) => {
        kExpected.set(expected.subarray(m * ldy + yOffset + c, m * ldy + yOffset + 2 * c), slot * c);
        vExpected.set(expected.subarray(m * ldy + yOffset + 2 * c, m * ldy + yOffset + 3 * c), slot * c);
      });
      expect(maxAbsDiff(kPool, kExpected)).toBeLessThan(1e-4);
      expect(maxAbsDiff(vPool, vExpected)).toBeLessThan(1e-4);
    }, SLOW);
  }

  for (const variant of ['thread', 'workgroup'] as const) {
    it(`paged attention (${variant}): a chunk after a cached prefix and a decode row, through shuffled blocks`, async () => {
      const c = 16;
      const nHead = 2;
      const blockSize = 4;
      const numBlocks = 10;
      const maxBlocks = 4;
      // Sequence 0: 4 new tokens at positions 7..10; sequence 1: one decode token at position 5.
      const positions = new Int32Array([7, 8, 9, 10, 5]);
      const tokenSeq = new Int32Array([0, 0, 0, 0, 1]);
      const blockTables = new Int32Array([3, 7, 1, -1, 8, 0, -1, -1]);
      const tokens = positions.length;
      const qkv = randomArray(tokens * 3 * c, 11, -2, 2);
      const kPool = randomArray(numBlocks * blockSize * c, 12);
      const vPool = randomArray(numBlocks * blockSize * c, 13);
      const [, , , , , , out] = await runKernel({
        code: attentionWgsl({ c, nHead, blockSize }, variant),
        step: { tokens, seqs: 2, maxBlocks },
        bindings: [{ data: qkv }, { data: kPool }, { data: vPool }, { data: positions }, { data: tokenSeq }, { data: blockTables }, { data: new Float32Array(tokens * c), write: true }],
        grid: attentionGrid(variant, tokens, nHead),
      });
      const expected = referenceAttention(qkv, kPool, vPool, positions, tokenSeq, blockTables, maxBlocks, blockSize, c, nHead);
      expect(maxAbsDiff(out, expected)).toBeLessThan(1e-5);
    }, SLOW);
  }

  it('paged attention (workgroup): contexts longer than the lanes, each lane taking several keys', async () => {
    const c = 16;
    const nHead = 2;
    const blockSize = 4;
    const maxBlocks = 26;
    const numBlocks = 2 * maxBlocks;
    // Two decode rows at positions 100 and 37, their blocks interleaved in the pool.
    const positions = new Int32Array([100, 37]);
    const tokenSeq = new Int32Array([0, 1]);
    const blockTables = new Int32Array(2 * maxBlocks).fill(-1);
    for (let b = 0; b < maxBlocks; b++) blockTables[b] = 2 * b + 1;
    for (let b = 0; b < 10; b++) blockTables[maxBlocks + b] = 2 * b;
    const qkv = randomArray(2 * 3 * c, 14, -2, 2);
    const kPool = randomArray(numBlocks * blockSize * c, 15);
    const vPool = randomArray(numBlocks * blockSize * c, 16);
    const [, , , , , , out] = await runKernel({
      code: attentionWgsl({ c, nHead, blockSize }, 'workgroup'),
      step: { tokens: 2, seqs: 2, maxBlocks },
      bindings: [{ data: qkv }, { data: kPool }, { data: vPool }, { data: positions }, { data: tokenSeq }, { data: blockTables }, { data: new Float32Array(2 * c), write: true }],
      grid: attentionGrid('workgroup', 2, nHead),
    });
    const expected = referenceAttention(qkv, kPool, vPool, positions, tokenSeq, blockTables, maxBlocks, blockSize, c, nHead);
    expect(maxAbsDiff(out, expected)).toBeLessThan(1e-5);
  }, SLOW);

  it('argmax partials: the first largest logit of each span, ties to the lower id', async () => {
    const vocab = 53; // 4 spans, the last one short
    const ld = 56;
    const rows = 3;
    const logits = new Float32Array(rows * ld);
    for (let r = 0; r < rows; r++) logits.set(randomArray(vocab, 200 + r, -4, 4).map((v) => Math.round(v)), r * ld);
    logits[ld + 20] = 9; // row 1: a tie across two spans
    logits[ld + 40] = 9;
    logits[2 * ld + 52] = -Infinity; // the short span's only logit
    const partials = new Uint32Array((await argmaxPartials(logits, vocab, ld, rows)).buffer);
    const spans = argmaxPartialCount(vocab);
    for (let r = 0; r < rows; r++) {
      for (let p = 0; p < spans; p++) {
        const span = Array.from(logits.subarray(r * ld + p * ARGMAX_SPAN, r * ld + Math.min(vocab, (p + 1) * ARGMAX_SPAN)));
        const best = span.indexOf(Math.max(...span));
        expect([r, p, partials[2 * (r * spans + p) + 1]]).toEqual([r, p, p * ARGMAX_SPAN + best]);
        expect(new Float32Array(partials.buffer, 8 * (r * spans + p), 1)[0]).toBe(span[best]);
      }
    }
  }, SLOW);

  for (const reduction of ['thread', 'workgroup'] as const) {
    it(`sampling (${reduction} argmax) picks the cpu backend's token for greedy, temperature, top-k and top-p rows, ties included`, async () => {
      const vocab = 257;
      const ld = 260;
      const settings = [
        [0, 0, 1],
        [1, 1, 1],
        [0.8, 0, 1],
        [1.3, 5, 1],
        [0.7, 0, 0.9],
        [1, 20, 0.5],
        [2, 3, 0.3],
        [0.5, 300, 1],
      ];
      const rows = 48;
      const logits = new Float32Array(rows * ld);
      const params = new Float32Array(rows * 4);
      const draws = randomArray(rows, 14, 0, 1);
      for (let r = 0; r < rows; r++) {
        // Quantised logits make many ties, which must break toward the lower id as on the cpu.
        const row = randomArray(vocab, 100 + r, -4, 4).map((v) => Math.round(v * 4) / 4);
        logits.set(row, r * ld);
        const [temperature, topK, topP] = settings[r % settings.length];
        params.set([temperature, topK, topP, draws[r]], 4 * r);
      }
      const partials = await argmaxPartials(logits, vocab, ld, rows);
      const [, , out] = await runKernel({
        code: sampleWgsl(vocab, ld, reduction),
        step: { tokens: 1, rows },
        bindings: [{ data: logits }, { data: params }, { data: new Uint32Array(rows), write: true }, { data: partials }],
        grid: [rows],
      });
      const tokens = new Uint32Array(out.buffer);
      const scratch = createSampleScratch(vocab);
      const expected = Array.from({ length: rows }, (_, r) => {
        const row = new Float32Array(logits.buffer, r * ld * 4, vocab);
        return sampleToken(row, 0, vocab, params[4 * r], params[4 * r + 1], params[4 * r + 2], params[4 * r + 3], scratch);
      });
      const mismatches = expected.flatMap((token, r) => (tokens[r] === token ? [] : [{ row: r, params: Array.from(params.subarray(4 * r, 4 * r + 4)), gpu: tokens[r], cpu: token }]));
      expect(mismatches).toEqual([]);
    }, SLOW);
  }

  it('greedy sampling (workgroup argmax) over more partials than lanes: the lowest id among tied maxima', async () => {
    const vocab = 9001; // 563 partials: two or three per lane
    const ld = 9004;
    const rows = 3;
    const logits = new Float32Array(rows * ld);
    for (let r = 0; r < rows; r++) logits.set(randomArray(vocab, 200 + r, -4, 4), r * ld);
    // Row 0: the maximum at ids in different lanes' partials; row 1: at the last id; row 2: at id 0 and 8999.
    const maxima = [[7000, 300, 4500], [9000], [8999, 0]];
    maxima.forEach((ids, r) => ids.forEach((id) => (logits[r * ld + id] = 10)));
    const partials = await argmaxPartials(logits, vocab, ld, rows);
    const [, , out] = await runKernel({
      code: sampleWgsl(vocab, ld, 'workgroup'),
      step: { tokens: 1, rows },
      bindings: [{ data: logits }, { data: new Float32Array(rows * 4) }, { data: new Uint32Array(rows), write: true }, { data: partials }],
      grid: [rows],
    });
    expect(Array.from(new Uint32Array(out.buffer))).toEqual([300, 9000, 0]);
  }, SLOW);
});

/** The argmax kernel's partials for `rows` rows of logits, as the sample kernel reads them. */
async function argmaxPartials(logits: Float32Array, vocab: number, ld: number, rows: number): Promise<Float32Array> {
  const partials = new Uint32Array(rows * argmaxPartialCount(vocab) * 2);
  const [, out] = await runKernel({
    code: argmaxPartialsWgsl(vocab, ld),
    step: { tokens: 1, rows },
    bindings: [{ data: logits }, { data: partials, write: true }],
    grid: [Math.ceil(argmaxPartialCount(vocab) / ARGMAX_WORKGROUP), rows],
  });
  return out;
}

/** Plain float64 causal attention: gathers each sequence's keys and values through its block table first. */
function referenceAttention(qkv: Float32Array, kPool: Float32Array, vPool: Float32Array, positions: Int32Array, tokenSeq: Int32Array, blockTables: Int32Array, maxBlocks: number, blockSize: number, c: number, nHead: number): Float32Array {
  const hd = c / nHead;
  const out = new Float32Array(positions.length * c);
  for (let t = 0; t < positions.length; t++) {
    const slots = Array.from({ length: positions[t] + 1 }, (_, j) => blockTables[tokenSeq[t] * maxBlocks + Math.floor(j / blockSize)] * blockSize + (j % blockSize));
    for (let h = 0; h < nHead; h++) {
      const scores = slots.map((slot) => {
        let dot = 0;
        for (let d = 0; d < hd; d++) dot += qkv[t * 3 * c + h * hd + d] * kPool[slot * c + h * hd + d];
        return dot / Math.sqrt(hd);
      });
      const max = Math.max(...scores);
      const weights = scores.map((s) => Math.exp(s - max));
      const sum = weights.reduce((a, b) => a + b, 0);
      for (let d = 0; d < hd; d++) {
        let acc = 0;
        slots.forEach((slot, j) => (acc += weights[j] * vPool[slot * c + h * hd + d]));
        out[t * c + h * hd + d] = acc / sum;
      }
    }
  }
  return out;
}
