// LayerNorm over rows of width C, two passes (mean, then variance) as the CPU backend does.
// `rows: 'tokens'` normalises every token row in place order; `rows: 'sampled'` is the final
// LayerNorm: it reads only the last token of each sequence that samples this step and writes
// them densely, so the LM head runs on R rows, not T.
// Reductions (common.wgsl.ts): 'thread' gives each row to one invocation, 'workgroup' to a
// workgroup.

import { f32Literal, OPAQUE_BOUND, STEP_PARAMS, type Reduction } from './common.wgsl.ts';
export const LAYERNORM_THREAD_WORKGROUP = 8;
export const LAYERNORM_GROUP_SIZE = 256;

export interface LayerNormShape {
  c: number;
  eps: number;
  rows: 'tokens' | 'sampled';
  variant: Reduction;
}

export function layerNormWgsl(s: LayerNormShape): string {
  const sampled = s.rows === 'sampled';
  const bindings = /* wgsl */ `
${STEP_PARAMS}
@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
${sampled ? `@group(0) @binding(5) var<storage, read> queryStart: array<u32>;
@group(0) @binding(6) var<storage, read> sampleSeqs: array<u32>;` : ''}

const C = ${s.c}u;
${OPAQUE_BOUND}
const EPS = ${f32Literal(s.eps)};

fn rowCount() -> u32 { return ${sampled ? 'step.rows' : 'step.tokens'}; }
fn sourceRow(r: u32) -> u32 { return ${sampled ? 'queryStart[sampleSeqs[r] + 1u] - 1u' : 'r'}; }
`;
  if (s.variant === 'thread') {
    return /* wgsl */ `${bindings}
@compute @workgroup_size(${LAYERNORM_THREAD_WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let r = gid.x;
  if (r >= rowCount()) { return; }
  let src = sourceRow(r) * C;
  let end = opaque(C);
  var sum = 0.0;
  for (var j = 0u; j < end; j++) { sum += x[src + j]; }
  let mean = sum / f32(C);
  var squares = 0.0;
  for (var j = 0u; j < end; j++) { let d = x[src + j] - mean; squares += d * d; }
  let inv = inverseSqrt(squares / f32(C) + EPS);
  let dst = r * C;
  for (var j = 0u; j < end; j++) { y[dst + j] = (x[src + j] - mean) * inv * gamma[j] + beta[j]; }
}
`;
  }
  // A workgroup per row, each lane holding its ceil(C / G) elements in registers: the row is read
  // from memory once, its loads issued together (a constant trip count, unrolled), then the mean
  // and the variance come from the registers. Three passes over memory, each a loop of C / 64
  // loads under an opaque bound (not unrolled: one load in flight at a time), made this kernel a
  // quarter of a GPT-2 decode step on an H100 and an H200 (15.8-17 us a call: latency, not
  // bandwidth). The opaque bound is for lavapipe, which runs the 'thread' variant.
  const g = LAYERNORM_GROUP_SIZE;
  const per = Math.ceil(s.c / g);
  // Lanes past the row's end only where C is not a multiple of the workgroup.
  const inRow = s.c % g === 0 ? '' : 'if (j < C) ';
  return /* wgsl */ `${bindings}
const G = ${g}u;
const PER = ${per}u;
var<workgroup> partial: array<f32, ${g}>;

fn reduceSum(li: u32, value: f32) -> f32 {
  partial[li] = value;
  workgroupBarrier();
  for (var half = ${g / 2}u; half > 0u; half >>= 1u) {
    if (li < half) { partial[li] += partial[li + half]; }
    workgroupBarrier();
  }
  let total = partial[0];
  workgroupBarrier();
  return total;
}

@compute @workgroup_size(${g})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32, @builtin(num_workgroups) grid: vec3u) {
  let r = wg.y * grid.x + wg.x;
  if (r >= rowCount()) { return; } // uniform across the workgroup, so the barriers stay uniform
  let src = sourceRow(r) * C;
  var v: array<f32, ${per}>;
  var sum = 0.0;
  for (var k = 0u; k < PER; k++) {
    let j = li + k * G;
    v[k] = 0.0;
    ${inRow}{ v[k] = x[src + j]; }
    sum += v[k];
  }
  let mean = reduceSum(li, sum) / f32(C);
  var squares = 0.0;
  for (var k = 0u; k < PER; k++) {
    let j = li + k * G;
    ${inRow}{ let d = v[k] - mean; squares += d * d; }
  }
  let inv = inverseSqrt(reduceSum(li, squares) / f32(C) + EPS);
  let dst = r * C;
  for (var k = 0u; k < PER; k++) {
    let j = li + k * G;
    ${inRow}{ y[dst + j] = (v[k] - mean) * inv * gamma[j] + beta[j]; }
  }
}
`;
}
