// Causal attention over the paged KV pool with an online softmax (running max and sum), so no
// score buffer is needed: the token at position p reads keys and values 0..p of its sequence
// through the block table. The same kernel serves decode rows, whole prompts and a prefill
// chunk after a cached prefix, because the chunk's own K/V were written to the pool just before.
// Two variants:
//  - 'thread': one invocation per (token, head), no barrier: what lavapipe runs well;
//  - 'workgroup': one workgroup per (token, head), its lanes taking every LANES-th key, their
//    partial softmax states merged through shared memory. On a GPU the thread variant leaves
//    a decode step with nHead invocations in all: an H100 took ~160 µs per layer for GPT-2 at
//    a context of 40 tokens, with 12 lanes busy.

import { FLAT_INDEX, flatGrid, OPAQUE_BOUND, STEP_PARAMS, type Reduction } from './common.wgsl.ts';

export const ATTENTION_WORKGROUP = 8;

export interface AttentionShape {
  c: number;
  nHead: number;
  blockSize: number;
}

/** Shared memory a workgroup may use in every WebGPU implementation (maxComputeWorkgroupStorageSize's default). */
const WORKGROUP_STORAGE_BYTES = 16384;

/** Lanes per (token, head) in the workgroup variant: up to 32, fewer when a head's partial sums would not fit in shared memory. */
function attentionLanes(s: AttentionShape): number {
  const headBytes = (s.c / s.nHead) * 4;
  let lanes = 32;
  while (lanes > 1 && lanes * (headBytes + 8) > WORKGROUP_STORAGE_BYTES) lanes /= 2;
  return lanes;
}

/** The grid for a step of `tokens` tokens: (token, head) items, 8 per workgroup or one each. */
export function attentionGrid(variant: Reduction, tokens: number, nHead: number): [number, number] {
  return flatGrid(tokens * nHead, variant === 'thread' ? ATTENTION_WORKGROUP : 1);
}

function header(s: AttentionShape): string {
  const hd = s.c / s.nHead;
  return /* wgsl */ `
${STEP_PARAMS}
${FLAT_INDEX}
@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> qkv: array<vec4f>;
@group(0) @binding(2) var<storage, read> kPool: array<vec4f>;
@group(0) @binding(3) var<storage, read> vPool: array<vec4f>;
@group(0) @binding(4) var<storage, read> positions: array<u32>;
@group(0) @binding(5) var<storage, read> tokenSeq: array<u32>;
@group(0) @binding(6) var<storage, read> blockTables: array<i32>;
@group(0) @binding(7) var<storage, read_write> out: array<vec4f>;

const C4 = ${s.c / 4}u;
const H = ${s.nHead}u;
const HD4 = ${hd / 4}u;
const BS = ${s.blockSize}u;
${OPAQUE_BOUND}
const SCALE = ${1 / Math.sqrt(hd)};
`;
}

/** The online-softmax loop over keys first, first + stride, ... of token t, head h: leaves runningMax, sum and acc. */
function keyLoop(hd4: number, first: string, stride: string): string {
  return /* wgsl */ `
  var q: array<vec4f, ${hd4}>;
  var acc: array<vec4f, ${hd4}>;
  let qBase = t * 3u * C4 + h * HD4;
  for (var d = 0u; d < hd4; d++) { q[d] = qkv[qBase + d] * SCALE; }
  let table = tokenSeq[t] * step.maxBlocks;
  let length = positions[t] + 1u;
  var runningMax = -3.0e38;
  var sum = 0.0;
  for (var j = ${first}; j < length; j += ${stride}) {
    let slot = u32(blockTables[table + j / BS]) * BS + j % BS;
    let base = slot * C4 + h * HD4;
    var score = 0.0;
    for (var d = 0u; d < hd4; d++) { score += dot(q[d], kPool[base + d]); }
    if (score > runningMax) {
      let correction = exp(runningMax - score);
      sum *= correction;
      for (var d = 0u; d < hd4; d++) { acc[d] *= correction; }
      runningMax = score;
    }
    let p = exp(score - runningMax);
    sum += p;
    for (var d = 0u; d < hd4; d++) { acc[d] += p * vPool[base + d]; }
  }
  let o = t * C4 + h * HD4;`;
}

export function attentionWgsl(s: AttentionShape, variant: Reduction = 'thread'): string {
  const hd4 = s.c / s.nHead / 4;
  if (variant === 'thread') {
    return /* wgsl */ `${header(s)}
@compute @workgroup_size(${ATTENTION_WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32, @builtin(num_workgroups) grid: vec3u) {
  let item = flatIndex(wg, li, grid, ${ATTENTION_WORKGROUP}u);
  if (item >= step.tokens * H) { return; }
  let t = item / H;
  let h = item % H;
  let hd4 = opaque(HD4);
${keyLoop(hd4, '0u', '1u')}
  let inv = 1.0 / sum;
  for (var d = 0u; d < hd4; d++) { out[o + d] = acc[d] * inv; }
}
`;
  }
  const lanes = attentionLanes(s);
  return /* wgsl */ `${header(s)}
const LANES = ${lanes}u;
var<workgroup> laneMax: array<f32, ${lanes}>;
var<workgroup> laneSum: array<f32, ${lanes}>;
var<workgroup> laneAcc: array<vec4f, ${lanes * hd4}>;

@compute @workgroup_size(${lanes})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) lane: u32, @builtin(num_workgroups) grid: vec3u) {
  let item = flatIndex(wg, 0u, grid, 1u);
  if (item >= step.tokens * H) { return; } // the same for the whole workgroup
  let t = item / H;
  let h = item % H;
  let hd4 = opaque(HD4);
${keyLoop(hd4, 'lane', 'LANES')}
  // Merge the lanes' states: rescale each to the largest running max (a lane that saw no key
  // has max -3e38 and scales to 0), then lane d sums dimension d over the lanes.
  laneMax[lane] = runningMax;
  workgroupBarrier();
  var m = laneMax[0];
  for (var l = 1u; l < LANES; l++) { m = max(m, laneMax[l]); }
  let scale = exp(runningMax - m);
  laneSum[lane] = sum * scale;
  for (var d = 0u; d < hd4; d++) { laneAcc[lane * HD4 + d] = acc[d] * scale; }
  workgroupBarrier();
  var total = 0.0;
  for (var l = 0u; l < LANES; l++) { total += laneSum[l]; }
  let inv = 1.0 / total;
  for (var d = lane; d < hd4; d += LANES) {
    var v = vec4f(0.0);
    for (var l = 0u; l < LANES; l++) { v += laneAcc[l * HD4 + d]; }
    out[o + d] = v * inv;
  }
}
`;
}
