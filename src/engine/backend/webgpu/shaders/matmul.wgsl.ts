// Y[m, n] = X[m, :] . W[:, n] with W in Hugging Face's Conv1D layout [K, N]: neighbouring lanes
// own neighbouring vec4 column groups, so every W load is contiguous across the lanes (coalesced
// on a GPU, one vector load on lavapipe) and X is the same for all lanes of a row (a broadcast).
// Each invocation keeps TM rows x 4 columns in registers and never touches shared memory:
//  - TM = 1 is the GEMV shape of decode, where W is streamed once per row and bandwidth rules;
//  - TM = 2..8 reuses each W load for TM rows: the GEMM shape of prefill on lavapipe, where a
//    barrier-free kernel beats shared-memory tiling 3-4x (workgroup barriers cost ~18 µs there).
// Real GPUs take the shared-memory tiled kernel (matmul-tiled.wgsl.ts) for prefill instead.

import { f32Literal, OPAQUE_BOUND, STEP_PARAMS } from './common.wgsl.ts';
import { epilogueBindingKinds, epilogueBindings, epilogueStore, GELU, type Epilogue } from './epilogue.wgsl.ts';

export const MATMUL_WORKGROUP = 64;

export interface MatmulShape {
  /** Inner dimension (multiple of 4) and W's column count (multiple of 4). */
  k: number;
  n: number;
  /** Row stride of Y and the column where this matmul's outputs start (multiples of 4). */
  ldy: number;
  yOffset: number;
  /** Rows of X: every token, or only the sampled rows (LM head). */
  rows: 'tokens' | 'sampled';
  epilogue: Epilogue;
  /**
   * X is the residual stream and the kernel applies the block's LayerNorm to each row on the
   * way in (its gamma and beta bound after the epilogue's bindings): the split-K kernel only,
   * which saves the LayerNorm's own dispatch on few-row steps.
   */
  norm?: { eps: number };
}

/** Where a fused LayerNorm's gamma is bound (beta at the next binding). */
function normBinding(s: Pick<MatmulShape, 'epilogue'>): number {
  return 4 + epilogueBindingKinds(s.epilogue).length;
}

/** Where a matmul reads W: a storage buffer of vec4 column groups, or a read-only rgba32float storage texture of them. */
export type WeightStorage = 'buffer' | 'texture';

/**
 * What every matmul kernel starts with: the same bindings, epilogue and shape constants, so
 * the register-blocked and the tiled kernel are interchangeable in one pipeline slot (and the
 * texture-weight kernel differs only in binding 2).
 */
export function matmulPrelude(s: MatmulShape, weights: WeightStorage = 'buffer'): string {
  return /* wgsl */ `
${STEP_PARAMS}
@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> x: array<vec4f>;
${weights === 'buffer' ? '@group(0) @binding(2) var<storage, read> w: array<vec4f>;' : '@group(0) @binding(2) var w: texture_storage_2d<rgba32float, read>;'}
@group(0) @binding(3) var<storage, read_write> y: array<vec4f>;
${epilogueBindings(s.epilogue, 4)}
${s.norm ? `@group(0) @binding(${normBinding(s)}) var<storage, read> gamma: array<vec4f>;
@group(0) @binding(${normBinding(s) + 1}) var<storage, read> beta: array<vec4f>;
const EPS = ${f32Literal(s.norm.eps)};` : ''}
${s.epilogue === 'bias-gelu' ? GELU : ''}
const K4 = ${s.k / 4}u;
const N4 = ${s.n / 4}u;
const LDY4 = ${s.ldy / 4}u;
const YOFF4 = ${s.yOffset / 4}u;
${OPAQUE_BOUND}
`;
}

/**
 * WGSL: the dot products of TM rows of X (from m0; rows past the last repeat it) with W's vec4
 * column `column`, over k = start, start + stride, ... below K4, into `accs`: each W load feeds
 * every row. Needs TM, m0 and rows in scope; with `norm`, also each row's LayerNorm mean and
 * 1/std in rowMean and rowRstd, applied to X as it is read.
 */
export function rowBlockDots(tm: number, column: string, start: string, stride: string, norm = false): string {
  return /* wgsl */ `  var xrow: array<u32, ${tm}>;
  for (var i = 0u; i < TM; i++) { xrow[i] = min(m0 + i, rows - 1u) * K4; }
  var accs: array<vec4f, ${tm}>;
  let kEnd = opaque(K4);
  for (var k = ${start}; k < kEnd; k += ${stride}) {
    let wi = 4u * k * N4 + ${column};
    let w0 = w[wi];
    let w1 = w[wi + N4];
    let w2 = w[wi + 2u * N4];
    let w3 = w[wi + 3u * N4];${norm ? `
    let g = gamma[k];
    let b = beta[k];` : ''}
    for (var i = 0u; i < TM; i++) {
      let xv = ${norm ? '(x[xrow[i] + k] - rowMean[i]) * rowRstd[i] * g + b' : 'x[xrow[i] + k]'};
      accs[i] += xv.x * w0 + xv.y * w1 + xv.z * w2 + xv.w * w3;
    }
  }`;
}

/** The kernels other than split-K read X as it is: a shape asking for a fused LayerNorm is a bug in the caller. */
export function refuseNorm(s: MatmulShape, kernel: string): void {
  if (s.norm) throw new Error(`the ${kernel} matmul cannot fuse a LayerNorm (only the split-K kernel does)`);
}

export function matmulWgsl(s: MatmulShape, tm: number): string {
  refuseNorm(s, 'register-blocked');
  return /* wgsl */ `${matmulPrelude(s)}const TM = ${tm}u;

@compute @workgroup_size(${MATMUL_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let n = gid.x;
  let m0 = gid.y * TM;
  let rows = ${s.rows === 'sampled' ? 'step.rows' : 'step.tokens'};
  if (n >= N4 || m0 >= rows) { return; }
${rowBlockDots(tm, 'n', '0u', '1u')}
  for (var i = 0u; i < TM; i++) {
    if (m0 + i < rows) {
      let o = (m0 + i) * LDY4 + YOFF4 + n;
      let acc = accs[i];
      ${epilogueStore(s.epilogue, 'm0 + i')}
    }
  }
}
`;
}
