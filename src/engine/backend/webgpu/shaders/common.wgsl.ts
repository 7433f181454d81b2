// WGSL shared by every kernel: the per-step sizes (one small uniform buffer written once per
// step, so pipelines stay valid for any batch) and a flat invocation index over a 2-D grid
// (one grid dimension holds at most 65535 workgroups).

/**
 * How a kernel reduces (a row's mean, a head's softmax, a row's argmax): 'thread' in one
 * invocation, no barriers (lavapipe, where a workgroup barrier costs ~18 µs); 'workgroup' in a
 * workgroup through shared memory (real GPUs, where one lane per row leaves the machine idle).
 */
export type Reduction = 'thread' | 'workgroup';

export const STEP_PARAMS = /* wgsl */ `
struct StepParams {
  tokens: u32,     // T, rows of the token-major activations
  seqs: u32,       // S
  rows: u32,       // R, sampled rows
  maxBlocks: u32,  // columns of the block table
}
`;

/**
 * A loop bound the compiler cannot see through. lavapipe's LLVM fully unrolls loops with a
 * small constant trip count, and a few such loops took seconds per kernel to compile there
 * (measured: three 24-step loops 7.7 s at first dispatch, one 768-step loop 0.2 s). The bound
 * is the same number at run time; an empty step (no tokens) would make it 0, which is right too.
 */
export const OPAQUE_BOUND = /* wgsl */ `
fn opaque(n: u32) -> u32 { return select(n, 0u, step.tokens == 0u); }
`;

export const FLAT_INDEX = /* wgsl */ `
fn flatIndex(wg: vec3u, local: u32, grid: vec3u, size: u32) -> u32 {
  return (wg.y * grid.x + wg.x) * size + local;
}
`;

/** Workgroups for n invocations of `size` lanes, folded into two dimensions when needed. */
export function flatGrid(n: number, size: number): [number, number] {
  const groups = Math.max(1, Math.ceil(n / size));
  if (groups <= 65535) return [groups, 1];
  const y = Math.ceil(groups / 65535);
  return [Math.ceil(groups / y), y];
}

/** A WGSL float literal for a JS number (WGSL wants a decimal point or exponent). */
export function f32Literal(value: number): string {
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}
