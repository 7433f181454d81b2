// Records one forward pass as a list of dispatches. The recorder decides how they reach the
// GPU: all in one compute pass of one command buffer (normal steps), or one timed pass each
// (--profile). Sizes come from the step; every kernel reads the same StepParams uniform.

import type { ModelConfig } from '../../model/model-config.ts';
import type { BindGroups } from './bind-groups.ts';
import { flatGrid } from './shaders/common.wgsl.ts';
import { ARGMAX_WORKGROUP, argmaxPartialCount } from './shaders/argmax.wgsl.ts';
import { attentionGrid } from './shaders/attention.wgsl.ts';
import { EMBED_WORKGROUP } from './shaders/embed.wgsl.ts';
import { LAYERNORM_THREAD_WORKGROUP } from './shaders/layernorm.wgsl.ts';
import { TILED_COLS, TILED_ROWS } from './shaders/matmul-tiled.wgsl.ts';
import type { Kernel, KernelVariants, MatmulKernels, Pipelines } from './pipelines.ts';

export interface DispatchRecorder {
  dispatch(kernel: string, pipeline: GPUComputePipeline, group: GPUBindGroup, x: number, y: number): void;
}

export interface StepSizes {
  tokens: number;
  rows: number;
}

/**
 * Dispatches a step makes: per layer, two LayerNorms (none where the matmuls after them fuse
 * them), four matmuls (the first also storing K and V) and attention; then per token-table chunk
 * an embed and an LM head matmul, and the final LayerNorm, argmax and sample.
 */
export function dispatchesPerStep(nLayer: number, tableChunks: number, layerNormsFused: boolean): number {
  return (layerNormsFused ? 5 : 7) * nLayer + 2 * tableChunks + 3;
}

export function encodeForward(rec: DispatchRecorder, config: ModelConfig, p: Pipelines, g: BindGroups, sizes: StepSizes): void {
  const { tokens, rows } = sizes;
  const c = config.nEmbd;
  p.embed.forEach((kernel, i) => rec.dispatch('embed', kernel.pipeline, g.embed[i], ...flatGrid(tokens * c, EMBED_WORKGROUP)));
  const norm = (name: string, kernel: Kernel, group: GPUBindGroup, n: number): void => {
    const grid = p.variants.reductions === 'thread' ? flatGrid(n, LAYERNORM_THREAD_WORKGROUP) : flatGrid(n, 1);
    rec.dispatch(name, kernel.pipeline, group, ...grid);
  };
  // A LayerNorm and the matmul it feeds: one kernel where the matmul fuses it (split-K, few rows).
  const normThenMatmul = (ln: GPUBindGroup, name: string, k: MatmulKernels, group: GPUBindGroup, normedGroup: GPUBindGroup | undefined): void => {
    const fused = normedGroup === undefined ? null : normedMatmulDispatch(k, tokens, p.variants);
    if (fused) {
      rec.dispatch(`layernorm + ${name}`, fused.pipeline, normedGroup!, ...fused.grid);
      return;
    }
    norm('layernorm', p.layerNorm, ln, tokens);
    matmul(rec, name, k, group, tokens, p.variants);
  };
  for (const lg of g.layers) {
    normThenMatmul(lg.ln1, 'matmul qkv + kv write', p.qkv, lg.qkv, lg.qkvNormed);
    rec.dispatch('attention', p.attention.pipeline, lg.attention, ...attentionGrid(p.variants.reductions, tokens, config.nHead));
    matmul(rec, 'matmul attn proj + residual', p.proj, lg.proj, tokens, p.variants);
    normThenMatmul(lg.ln2, 'matmul fc + gelu', p.fc, lg.fc, lg.fcNormed);
    matmul(rec, 'matmul fc proj + residual', p.fcProj, lg.fcProj, tokens, p.variants);
  }
  if (rows === 0) return;
  norm('final layernorm', p.finalNorm, g.finalNorm, rows);
  p.lmHead.forEach((kernels, i) => matmul(rec, 'lm head', kernels, g.lmHead[i], rows, p.variants));
  rec.dispatch('argmax', p.argmax.pipeline, g.argmax, Math.ceil(argmaxPartialCount(config.vocabSize) / ARGMAX_WORKGROUP), rows);
  rec.dispatch('sample', p.sample.pipeline, g.sample, rows, 1);
}

function matmul(rec: DispatchRecorder, name: string, k: MatmulKernels, group: GPUBindGroup, rows: number, variants: KernelVariants): void {
  const { pipeline, grid } = matmulDispatch(k, rows, variants);
  rec.dispatch(name, pipeline, group, ...grid);
}

/** The fused LayerNorm + matmul for `rows` rows and its grid, where the matmul has one and these rows take a row-block kernel (the tiled one reads X as it is); else null. */
export function normedMatmulDispatch(k: MatmulKernels, rows: number, variants: Pick<KernelVariants, 'tiledFromRows' | 'tiledFromTiles'>): { pipeline: GPUComputePipeline; grid: [number, number] } | null {
  if (!k.normed) return null;
  const plain = matmulDispatch(k, rows, variants);
  const block = [...k.byRowBlock].find(([, pipeline]) => pipeline === plain.pipeline);
  return block === undefined ? null : { pipeline: k.normed.byRowBlock.get(block[0])!, grid: plain.grid };
}

/** The kernel for `rows` rows and its grid: on a GPU tiles from enough rows and tiles, else the smallest row block that covers the rows (the largest beyond). */
export function matmulDispatch(k: MatmulKernels, rows: number, variants: Pick<KernelVariants, 'tiledFromRows' | 'tiledFromTiles'>): { pipeline: GPUComputePipeline; grid: [number, number] } {
  const tiles: [number, number] = [Math.ceil(k.shape.n / TILED_COLS), Math.ceil(rows / TILED_ROWS)];
  if (k.tiled && rows >= variants.tiledFromRows && tiles[0] * tiles[1] >= variants.tiledFromTiles) return { pipeline: k.tiled, grid: tiles };
  const blocks = [...k.byRowBlock.keys()];
  const tm = blocks.find((b) => b >= rows) ?? blocks[blocks.length - 1];
  return { pipeline: k.byRowBlock.get(tm)!, grid: [Math.ceil(k.shape.n / 4 / k.columnsPerWorkgroup), Math.ceil(rows / tm)] };
}
