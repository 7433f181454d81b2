// One token per sampled row, on the GPU, with the CPU backend's exact rules so both backends
// pick the same token from the same logits (up to float rounding at a boundary):
//   temperature 0 or top-k 1: argmax, ties to the lower id;
//   otherwise probabilities exp((logit - max) / temperature) over the candidates, where the
//   order is (logit descending, id ascending); top-k keeps the first k of that order; top-p
//   keeps the shortest prefix whose mass reaches p of the total; the draw walks the kept
//   candidates in that order (in id order when neither filter is on) until the running mass
//   passes uniform * total.
// Sorting 50k logits per row is out of reach for one lane, and the order is only ever needed
// as "the prefix of the order whose measure reaches a threshold". That prefix is found by a
// radix search over the logits' order-preserving bit patterns: 8 passes of 4 bits, each pass a
// 16-bucket histogram of the measure (a count for top-k, a mass for top-p and the draw), then
// a walk in id order over the ties at the boundary key. One invocation per row, no barriers.
// The argmax (all greedy rows need, and the max the others scale by) comes from the per-span
// partials of argmax.wgsl.ts, run just before. With 'workgroup' reductions (GPUs) a workgroup
// of SAMPLE_WORKGROUP lanes reduces the partials and its first lane goes on alone: one lane
// scanning GPT-2's 3,142 partials took ~260 µs a step on an H100, more than any layer.

import { argmaxPartialCount } from './argmax.wgsl.ts';
import { OPAQUE_BOUND, STEP_PARAMS, type Reduction } from './common.wgsl.ts';

const SAMPLE_WORKGROUP = 256;

export function sampleWgsl(vocab: number, ldLogits: number, reduction: Reduction = 'thread'): string {
  const lanes = reduction === 'thread' ? 1 : SAMPLE_WORKGROUP;
  return /* wgsl */ `
${STEP_PARAMS}
@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> params: array<vec4f>; // temperature, topK, topP, uniform
@group(0) @binding(3) var<storage, read_write> tokens: array<u32>;
@group(0) @binding(4) var<storage, read> partials: array<vec2u>; // argmax.wgsl.ts

const V = ${vocab}u;
const LD = ${ldLogits}u;
const P = ${argmaxPartialCount(vocab)}u;
${OPAQUE_BOUND}

var<private> rowBase: u32;
var<private> maxLogit: f32;
var<private> temperature: f32;
// The candidate set: inside the top-k cut and inside the nucleus cut, each "key above the cut
// key, or equal to it with an id below the cut id".
var<private> useK: bool;
var<private> kKey: u32;
var<private> kId: u32;
var<private> useP: bool;
var<private> pKey: u32;
var<private> pId: u32;

/** Maps a float to a u32 whose unsigned order is the float order. */
fn orderKey(v: f32) -> u32 {
  let b = bitcast<u32>(v);
  return select(b | 0x80000000u, ~b, (b >> 31u) == 1u);
}

fn keyAt(i: u32) -> u32 { return orderKey(logits[rowBase + i]); }
fn probAt(i: u32) -> f32 { return exp((logits[rowBase + i] - maxLogit) / temperature); }

fn candidate(i: u32, key: u32) -> bool {
  if (useK && !(key > kKey || (key == kKey && i < kId))) { return false; }
  if (useP && !(key > pKey || (key == pKey && i < pId))) { return false; }
  return true;
}

fn measure(i: u32, byMass: bool) -> f32 { return select(1.0, probAt(i), byMass); }

fn reaches(value: f32, threshold: f32, strict: bool) -> bool {
  return select(value >= threshold, value > threshold, strict);
}

/**
 * The boundary of the shortest prefix, in (key desc, id asc) order, of the candidates whose
 * measure reaches the threshold: returns (key, first id after the prefix, 1). When rounding
 * leaves the threshold unreached: (0, V, 0), a prefix of every candidate.
 */
fn prefixBoundary(byMass: bool, threshold: f32, strict: bool) -> vec3u {
  var prefix = 0u;
  var above = 0.0;
  var hist: array<f32, 16>;
  for (var level = 0u; level < opaque(8u); level++) {
    let shift = 28u - 4u * level;
    // Cleared by hand: lavapipe kept the previous level's counts in a var declared in the loop.
    for (var b = 0u; b < 16u; b++) { hist[b] = 0.0; }
    for (var i = 0u; i < opaque(V); i++) {
      let key = keyAt(i);
      if (!candidate(i, key)) { continue; }
      if (level > 0u && (key >> (shift + 4u)) != (prefix >> (shift + 4u))) { continue; }
      hist[(key >> shift) & 15u] += measure(i, byMass);
    }
    var d = 15u;
    var cumulative = above;
    loop {
      cumulative += hist[d];
      if (reaches(cumulative, threshold, strict) || d == 0u) { break; }
      d--;
    }
    above = cumulative - hist[d];
    prefix |= d << shift;
  }
  var cumulative = above;
  for (var i = 0u; i < opaque(V); i++) {
    let key = keyAt(i);
    if (key != prefix || !candidate(i, key)) { continue; }
    cumulative += measure(i, byMass);
    if (reaches(cumulative, threshold, strict)) { return vec3u(prefix, i + 1u, 1u); }
  }
  return vec3u(0u, V, 0u);
}

/** The first id of the largest logit: the first of the largest span maxima, spans in id order. */
const LANES = ${lanes}u;
var<workgroup> laneValue: array<f32, ${lanes}>;
var<workgroup> laneId: array<u32, ${lanes}>;

/**
 * The id of the row's largest logit, ties to the lower id: lane l scans partials l, l + LANES, ...
 * (in id order, keeping the first of equals), then the lanes' winners meet in a tree. Every
 * lane returns the same id. (A NaN logit is never larger than anything: which id wins then is
 * not promised.)
 */
fn argmaxRow(r: u32, lane: u32) -> u32 {
  let base = r * P;
  let first = partials[base + min(lane, P - 1u)];
  var best = first.y;
  var bestValue = bitcast<f32>(first.x);
  for (var p = lane + LANES; p < opaque(P); p += LANES) {
    let e = partials[base + p];
    let v = bitcast<f32>(e.x);
    if (v > bestValue) { bestValue = v; best = e.y; }
  }
  if (LANES == 1u) { return best; }
  laneValue[lane] = bestValue;
  laneId[lane] = best;
  workgroupBarrier();
  for (var half = opaque(LANES) / 2u; half > 0u; half = half / 2u) {
    if (lane < half) {
      let v = laneValue[lane + half];
      let id = laneId[lane + half];
      if (v > laneValue[lane] || (v == laneValue[lane] && id < laneId[lane])) {
        laneValue[lane] = v;
        laneId[lane] = id;
      }
    }
    workgroupBarrier();
  }
  return laneId[0];
}

fn candidateMass() -> f32 {
  var total = 0.0;
  for (var i = 0u; i < opaque(V); i++) {
    if (candidate(i, keyAt(i))) { total += probAt(i); }
  }
  return total;
}

/** The last candidate in (key desc, id asc) order: the smallest key, the largest id among its ties. */
fn lastCandidate() -> u32 {
  var last = 0u;
  var lastKey = 0xffffffffu;
  for (var i = 0u; i < opaque(V); i++) {
    let key = keyAt(i);
    if (candidate(i, key) && key <= lastKey) { lastKey = key; last = i; }
  }
  return last;
}

@compute @workgroup_size(${lanes})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) lane: u32) {
  let r = wg.x;
  if (r >= step.rows) { return; }
  let p = params[r];
  temperature = p.x;
  let topK = u32(p.y);
  let topP = p.z;
  let uniform = p.w;
  rowBase = r * LD;
  let best = argmaxRow(r, lane);
  if (lane != 0u) { return; } // the rest is one lane's work
  if (temperature <= 0.0 || topK == 1u) { tokens[r] = best; return; }
  maxLogit = logits[rowBase + best];
  useK = false;
  useP = false;
  if (topK > 0u && topK < V) {
    let cut = prefixBoundary(false, f32(topK), false);
    kKey = cut.x;
    kId = cut.y;
    useK = true;
  }
  let sorted = useK || topP < 1.0;
  if (topP < 1.0) {
    let cut = prefixBoundary(true, topP * candidateMass(), false);
    pKey = cut.x;
    pId = cut.y;
    useP = true;
  }
  let drawn = uniform * candidateMass();
  if (sorted) {
    let cut = prefixBoundary(true, drawn, true);
    if (cut.z == 1u) { tokens[r] = cut.y - 1u; } else { tokens[r] = lastCandidate(); }
    return;
  }
  var mass = 0.0;
  for (var i = 0u; i < opaque(V); i++) {
    mass += probAt(i);
    if (mass > drawn) { tokens[r] = i; return; }
  }
  tokens[r] = V - 1u;
}
`;
}
