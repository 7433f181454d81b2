// Causal attention over the paged KV pool, one invocation per (token, head): the token at
// position p reads keys and values 0..p of its sequence through the block table, with an
// online softmax (running max and sum) so it needs no score buffer and no barrier. The same
// kernel serves decode rows, whole prompts and a prefill chunk after a cached prefix, because
// the chunk's own K/V were written to the pool just before.

import { FLAT_INDEX, OPAQUE_BOUND, STEP_PARAMS } from './common.wgsl.ts';

export const ATTENTION_WORKGROUP = 8;

export interface AttentionShape {
  c: number;
  nHead: number;
  blockSize: number;
}

export function attentionWgsl(s: AttentionShape): string {
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

@compute @workgroup_size(${ATTENTION_WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32, @builtin(num_workgroups) grid: vec3u) {
  let item = flatIndex(wg, li, grid, ${ATTENTION_WORKGROUP}u);
  if (item >= step.tokens * H) { return; }
  let t = item / H;
  let h = item % H;
  let hd4 = opaque(HD4);
  var q: array<vec4f, ${hd / 4}>;
  var acc: array<vec4f, ${hd / 4}>;
  let qBase = t * 3u * C4 + h * HD4;
  for (var d = 0u; d < hd4; d++) { q[d] = qkv[qBase + d] * SCALE; }
  let table = tokenSeq[t] * step.maxBlocks;
  let length = positions[t] + 1u;
  var runningMax = -3.0e38;
  var sum = 0.0;
  for (var j = 0u; j < length; j++) {
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
  let o = t * C4 + h * HD4;
  let inv = 1.0 / sum;
  for (var d = 0u; d < hd4; d++) { out[o + d] = acc[d] * inv; }
}
`;
}
