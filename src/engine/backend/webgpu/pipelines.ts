// Every compute pipeline the forward pass uses, compiled once when the backend starts, with
// explicit bind group layouts so all variants of one kernel (matmul rows-per-lane, tiled) share
// a layout and the bind groups built in bind-groups.ts work with any of them.
// Variants are chosen per adapter: a software adapter (lavapipe) gets only barrier-free
// kernels, and matmuls that read W from textures and share X by subgroup broadcasts where the
// device has subgroups (matmul-subgroup.wgsl.ts says why); a GPU gets the kernels that use
// workgroups: LayerNorm and attention reduced in shared memory, split-K matmuls for few rows
// and the shared-memory tiled GEMM for many, weights in buffers.

import type { ModelConfig } from '../../model/model-config.ts';
import type { KvLayout } from '../backend.ts';
import type { TokenTableChunk } from './gpu-weights.ts';
import { logitsStride } from './gpu-buffers.ts';
import { attentionWgsl } from './shaders/attention.wgsl.ts';
import type { Reduction } from './shaders/common.wgsl.ts';
import { embedWgsl } from './shaders/embed.wgsl.ts';
import { epilogueBindingKinds, type Epilogue } from './shaders/epilogue.wgsl.ts';
import { layerNormWgsl } from './shaders/layernorm.wgsl.ts';
import { matmulTiledWgsl } from './shaders/matmul-tiled.wgsl.ts';
import { matmulSplitKWgsl, splitKColumns } from './shaders/matmul-splitk.wgsl.ts';
import { matmulSubgroupWgsl, SUBGROUP_MATMUL_WORKGROUP } from './shaders/matmul-subgroup.wgsl.ts';
import { MATMUL_WORKGROUP, matmulWgsl, type MatmulShape, type WeightStorage } from './shaders/matmul.wgsl.ts';
import { sampleWgsl } from './shaders/sample.wgsl.ts';
import { argmaxPartialsWgsl } from './shaders/argmax.wgsl.ts';

/**
 * Rows per lane of the register-blocked buffer matmul (1 is the decode GEMV), and of the
 * subgroup texture matmul, whose bigger blocks reuse each texel load for more rows. A 32-row
 * block ran ~25% faster than 16 on lavapipe at 32+ rows (768 x 3072: 6.1 against 4.6 GFLOP per
 * CPU-second) but its unrolled body is slow to compile: a cold start (empty Mesa shader cache)
 * of the test model took 70 s with it, 27 s without, 8 s for the buffer kernels. Each block is a
 * pipeline to compile, so few.
 */
export const MATMUL_ROW_BLOCKS = [1, 4, 8] as const;
export const SUBGROUP_MATMUL_ROW_BLOCKS = [1, 8, 16] as const;

export interface KernelVariants {
  /** LayerNorm, attention and the sampler's argmax. */
  reductions: Reduction;
  /** Where matmuls read W: 'texture' runs matmul-subgroup.wgsl.ts, 'buffer' the others. */
  weights: WeightStorage;
  /** The subgroup size the texture matmul's broadcasts are written for. */
  subgroupSize: number;
  rowBlocks: readonly number[];
  /** Rows from which a matmul switches to the shared-memory tiled kernel; Infinity: never. */
  tiledFromRows: number;
  /** ... and from which count of its 64 x 64 output tiles (fewer: each tile walks all of K alone while most of the GPU idles). */
  tiledFromTiles: number;
  /** How a buffer matmul below tiledFromRows splits its work: a lane per vec4 column, or K split across a workgroup (matmul-splitk.wgsl.ts). */
  fewRows: 'columns' | 'split-k';
}

/**
 * A GPU's kernels. Where the tiled GEMM takes over from split-K was read off bench/webgpu.ts on
 * an H100 (GFLOP/s, split-K | tiled): 768 x 2304 (36 tiles at up to 64 rows) 1845 | 1181 at 16
 * rows, 2346 | 1996 at 32, 2632 | 3094 at 64; 768 x 3072 (48 tiles) 1915 | 1483 at 16, 1912 |
 * 2023 at 32; 3072 x 768 (12 tiles) 2625 | 1540 at 64; the LM head (786 tiles) 4549 | 6049 at 16.
 */
const HARDWARE_VARIANTS: KernelVariants = { reductions: 'workgroup', weights: 'buffer', subgroupSize: 0, rowBlocks: MATMUL_ROW_BLOCKS, tiledFromRows: 32, tiledFromTiles: 40, fewRows: 'split-k' };

/** 'software-buffers' is the software variant without texture weights (adapters without subgroups, and tests). */
export type VariantChoice = 'software' | 'software-buffers' | 'hardware';

/** The variants for a choice on a device with `subgroupSize` (undefined: no subgroups) whose texture limit fits the model or not. */
export function variantsFor(choice: VariantChoice, subgroupSize: number | undefined, texturesFit: boolean): KernelVariants {
  if (choice === 'hardware') return HARDWARE_VARIANTS;
  const textures = choice === 'software' && texturesFit && subgroupSize !== undefined && subgroupSize >= 1 && subgroupSize <= 64;
  const barrierFree = { reductions: 'thread', tiledFromRows: Infinity, tiledFromTiles: Infinity, fewRows: 'columns' } as const;
  return textures
    ? { ...barrierFree, weights: 'texture', subgroupSize: subgroupSize!, rowBlocks: SUBGROUP_MATMUL_ROW_BLOCKS }
    : { ...barrierFree, weights: 'buffer', subgroupSize: 0, rowBlocks: MATMUL_ROW_BLOCKS };
}

export interface MatmulKernels {
  shape: MatmulShape;
  /** Vec4 output columns per workgroup of the row-block kernels. */
  columnsPerWorkgroup: number;
  layout: GPUBindGroupLayout;
  byRowBlock: Map<number, GPUComputePipeline>;
  tiled?: GPUComputePipeline;
  /** The row-block kernels with the LayerNorm before this matmul fused in (split-K only), over their own layout: X is the residual stream. */
  normed?: { layout: GPUBindGroupLayout; byRowBlock: Map<number, GPUComputePipeline> };
}

export interface Kernel {
  layout: GPUBindGroupLayout;
  pipeline: GPUComputePipeline;
}

export interface Pipelines {
  variants: KernelVariants;
  embed: Kernel[]; // one per token-table chunk
  layerNorm: Kernel;
  finalNorm: Kernel;
  qkv: MatmulKernels;
  proj: MatmulKernels;
  fc: MatmulKernels;
  fcProj: MatmulKernels;
  lmHead: MatmulKernels[]; // one per token-table chunk
  attention: Kernel;
  argmax: Kernel;
  sample: Kernel;
}

type Binding = 'uniform' | 'read' | 'write' | 'texture';

function bindGroupLayout(device: GPUDevice, label: string, bindings: Binding[]): GPUBindGroupLayout {
  return device.createBindGroupLayout({
    label,
    entries: bindings.map((kind, binding) =>
      kind === 'texture'
        ? { binding, visibility: 0x4, storageTexture: { access: 'read-only', format: 'rgba32float' } } // 0x4: GPUShaderStage.COMPUTE
        : { binding, visibility: 0x4, buffer: { type: kind === 'uniform' ? 'uniform' : kind === 'read' ? 'read-only-storage' : 'storage' } },
    ),
  });
}

/** Compiles one WGSL kernel; a compile error becomes an Error that quotes the compiler's message. */
export async function compileKernel(device: GPUDevice, label: string, code: string, layout: GPUBindGroupLayout): Promise<GPUComputePipeline> {
  // Scoped, so Dawn reports the error to us instead of printing it as an uncaptured one.
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ label, code });
  const info = await module.getCompilationInfo();
  await device.popErrorScope();
  const errors = info.messages.filter((m) => m.type === 'error');
  if (errors.length > 0) {
    const lines = errors.map((m) => `  line ${m.lineNum}:${m.linePos}: ${m.message}`).join('\n');
    throw new Error(`webgpu backend: kernel "${label}" failed to compile:\n${lines}`);
  }
  try {
    return await device.createComputePipelineAsync({
      label,
      layout: device.createPipelineLayout({ label, bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main' },
    });
  } catch (error) {
    throw new Error(`webgpu backend: kernel "${label}" failed to build: ${(error as Error).message}`);
  }
}

async function kernel(device: GPUDevice, label: string, code: string, bindings: Binding[]): Promise<Kernel> {
  const layout = bindGroupLayout(device, label, bindings);
  return { layout, pipeline: await compileKernel(device, label, code, layout) };
}

/**
 * A matmul's kernels: the row-block variants and the tiled one. With `norm` (the eps of the
 * LayerNorm before it) the split-K variants also come with that LayerNorm fused in.
 */
export async function matmulKernels(device: GPUDevice, label: string, shape: MatmulShape, variants: KernelVariants, norm?: { eps: number }): Promise<MatmulKernels> {
  const textures = variants.weights === 'texture';
  const bindings: Binding[] = ['uniform', 'read', textures ? 'texture' : 'read', 'write'];
  bindings.push(...epilogueBindingKinds(shape.epilogue));
  const layout = bindGroupLayout(device, label, bindings);
  const splitK = !textures && variants.fewRows === 'split-k';
  const code = (tm: number): string => (textures ? matmulSubgroupWgsl(shape, tm, variants.subgroupSize) : splitK ? matmulSplitKWgsl(shape, tm) : matmulWgsl(shape, tm));
  const columnsPerWorkgroup = textures ? SUBGROUP_MATMUL_WORKGROUP : splitK ? splitKColumns(shape.n / 4) : MATMUL_WORKGROUP;
  const normedLayout = norm && splitK ? bindGroupLayout(device, `layernorm + ${label}`, [...bindings, 'read', 'read']) : undefined;
  const [tiled, blocked, normed] = await Promise.all([
    variants.tiledFromRows === Infinity ? undefined : compileKernel(device, `${label} tiled`, matmulTiledWgsl(shape), layout),
    Promise.all(variants.rowBlocks.map((tm) => compileKernel(device, `${label} x${tm}`, code(tm), layout))),
    normedLayout ? Promise.all(variants.rowBlocks.map((tm) => compileKernel(device, `layernorm + ${label} x${tm}`, matmulSplitKWgsl({ ...shape, norm }, tm), normedLayout))) : undefined,
  ]);
  const byBlock = (pipelines: GPUComputePipeline[]) => new Map(variants.rowBlocks.map((tm, i) => [tm, pipelines[i]]));
  return { shape, columnsPerWorkgroup, layout, tiled, byRowBlock: byBlock(blocked), ...(normedLayout && normed ? { normed: { layout: normedLayout, byRowBlock: byBlock(normed) } } : {}) };
}

export async function buildPipelines(device: GPUDevice, config: ModelConfig, kv: KvLayout, chunks: readonly Omit<TokenTableChunk, 'table'>[], variants: KernelVariants): Promise<Pipelines> {
  const c = config.nEmbd;
  const eps = config.layerNormEps;
  const linear = (k: number, n: number, epilogue: Epilogue): MatmulShape => ({ k, n, ldy: n, yOffset: 0, rows: 'tokens', epilogue });
  const ld = logitsStride(config);
  const [embed, layerNorm, finalNorm, qkv, proj, fc, fcProj, lmHead, attention, argmax, sample] = await Promise.all([
    Promise.all(chunks.map((chunk, i) => kernel(device, `embed ${i}`, embedWgsl({ c, chunkStart: chunk.start, chunkSize: chunk.size, chunkStride: chunk.stride }, variants.weights), ['uniform', 'read', 'read', variants.weights === 'texture' ? 'texture' : 'read', 'read', 'write']))),
    kernel(device, 'layernorm', layerNormWgsl({ c, eps, rows: 'tokens', variant: variants.reductions }), ['uniform', 'read', 'read', 'read', 'write']),
    kernel(device, 'final layernorm', layerNormWgsl({ c, eps, rows: 'sampled', variant: variants.reductions }), ['uniform', 'read', 'read', 'read', 'write', 'read', 'read']),
    matmulKernels(device, 'qkv', linear(c, 3 * c, 'bias-kv'), variants, { eps }),
    matmulKernels(device, 'attn proj', linear(c, c, 'bias-residual'), variants),
    matmulKernels(device, 'fc', linear(c, 4 * c, 'bias-gelu'), variants, { eps }),
    matmulKernels(device, 'fc proj', linear(4 * c, c, 'bias-residual'), variants),
    Promise.all(chunks.map((chunk, i) => matmulKernels(device, `lm head ${i}`, { k: c, n: chunk.stride, ldy: ld, yOffset: chunk.start, rows: 'sampled', epilogue: 'none' }, variants))),
    kernel(device, 'attention', attentionWgsl({ c, nHead: config.nHead, blockSize: kv.blockSize }, variants.reductions), ['uniform', 'read', 'read', 'read', 'read', 'read', 'read', 'write']),
    kernel(device, 'argmax', argmaxPartialsWgsl(config.vocabSize, ld), ['uniform', 'read', 'write']),
    kernel(device, 'sample', sampleWgsl(config.vocabSize, ld, variants.reductions), ['uniform', 'read', 'read', 'write', 'read']),
  ]);
  return { variants, embed, layerNorm, finalNorm, qkv, proj, fc, fcProj, lmHead, attention, argmax, sample };
}
