// The first half of greedy sampling, spread over many lanes: each lane finds the largest logit
// of one span of SPAN consecutive ids of one row (the first of equal values, so ties still go
// to the lower id) and writes (its bits, its id). The sample kernel, one invocation per row,
// then scans V / SPAN partials instead of V logits. On lavapipe the old scan was one active
// lane per row walking 50k logits (~7 ms a step at 8 rows); the spans run on every lane.

import { STEP_PARAMS } from './common.wgsl.ts';

export const ARGMAX_SPAN = 16;
export const ARGMAX_WORKGROUP = 64;

/** Partials per row for a vocabulary of `vocab` ids. */
export function argmaxPartialCount(vocab: number): number {
  return Math.ceil(vocab / ARGMAX_SPAN);
}

export function argmaxPartialsWgsl(vocab: number, ldLogits: number): string {
  return /* wgsl */ `
${STEP_PARAMS}
@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<vec2u>; // (bits of the max, its id) per span

const V = ${vocab}u;
const LD = ${ldLogits}u;
const P = ${argmaxPartialCount(vocab)}u;

@compute @workgroup_size(${ARGMAX_WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
  let p = wg.x * ${ARGMAX_WORKGROUP}u + li;
  let r = wg.y;
  if (r >= step.rows || p >= P) { return; }
  let start = p * ${ARGMAX_SPAN}u;
  let end = min(start + ${ARGMAX_SPAN}u, V);
  let base = r * LD;
  var best = start;
  var bestValue = logits[base + start];
  for (var i = start + 1u; i < end; i++) {
    let v = logits[base + i];
    if (v > bestValue) { bestValue = v; best = i; }
  }
  partials[r * P + p] = vec2u(bitcast<u32>(bestValue), best);
}
`;
}
