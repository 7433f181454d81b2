// The few-row matmul for real GPUs (decode, and prefill below the tiled kernel's threshold):
// the register-blocked kernel (matmul.wgsl.ts) gives one lane to each vec4 of output columns,
// so GPT-2's 768-wide projections ran as 192 lanes, 3 workgroups, on a GPU of 132
// multiprocessors: an H100 spent ~400 µs on one 3072 x 768 GEMV that streams 9.4 MB, ~24 GB/s.
// Here a workgroup of 256 lanes owns CW vec4 columns and splits K among 256 / CW slices; each
// lane keeps TM rows x one vec4 in registers over its slice, and the slices are summed in
// shared memory, row by row (a tree of log2(KS) barriers), before the epilogue. CW is chosen
// per shape so that a matmul spans 100-200 workgroups, with at least 32 contiguous bytes (one
// memory sector) per W row read. With `norm` the kernel applies the block's LayerNorm to each
// X row as it reads it (statistics reduced by the workgroup first), so a decode step runs no
// LayerNorm kernel before the QKV and MLP projections.

import { epilogueStore } from './epilogue.wgsl.ts';
import { matmulPrelude, rowBlockDots, type MatmulShape } from './matmul.wgsl.ts';

export const SPLITK_WORKGROUP = 256;

/** Vec4 columns per workgroup for a matmul of n4 vec4 columns: a power of two in 2..64. */
export function splitKColumns(n4: number): number {
  let columns = 2;
  while (columns < 64 && n4 / (2 * columns) >= 128) columns *= 2;
  return columns;
}

export function matmulSplitKWgsl(s: MatmulShape, tm: number): string {
  const columns = splitKColumns(s.n / 4);
  return /* wgsl */ `${matmulPrelude(s)}const TM = ${tm}u;
const CW = ${columns}u;
const KS = ${SPLITK_WORKGROUP / columns}u;
var<workgroup> partial: array<vec4f, ${SPLITK_WORKGROUP}>;
${s.norm ? normStatsDeclarations(tm) : ''}
@compute @workgroup_size(${SPLITK_WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
  let rows = ${s.rows === 'sampled' ? 'step.rows' : 'step.tokens'};
  let slice = li / CW;
  let n = wg.x * CW + li % CW;
  let wn = min(n, N4 - 1u); // lanes past the last column sum a copy of it and store nothing
  let m0 = wg.y * TM;
${s.norm ? normStats : ''}${rowBlockDots(tm, 'wn', 'slice', 'KS', s.norm !== undefined)}
  // No early return anywhere: every lane must reach every barrier.
  for (var i = 0u; i < TM; i++) {
    partial[li] = accs[i];
    workgroupBarrier();
    for (var half = opaque(KS) / 2u; half > 0u; half = half / 2u) {
      if (slice < half) { partial[li] += partial[li + half * CW]; }
      workgroupBarrier();
    }
    if (slice == 0u && n < N4 && m0 + i < rows) {
      let o = (m0 + i) * LDY4 + YOFF4 + n;
      let acc = partial[li];
      ${epilogueStore(s.epilogue, 'm0 + i')}
    }
    workgroupBarrier(); // the next row overwrites partial
  }
}
`;
}

/** Lanes that reduce one row's LayerNorm statistics: the workgroup split evenly among the TM rows. */
function normStatsDeclarations(tm: number): string {
  return /* wgsl */ `const NORM_LANES = ${SPLITK_WORKGROUP / tm}u;
var<workgroup> normSums: array<f32, ${SPLITK_WORKGROUP}>;
var<workgroup> normStats: array<vec2f, ${tm}>;`;
}

/**
 * WGSL: the fused LayerNorm's mean and 1/std of each of the block's TM rows, in rowMean and
 * rowRstd. NORM_LANES lanes a row sum it in two passes (mean, then the squared deviations, as
 * the LayerNorm kernel and the CPU backend do), each reduced in shared memory; the row is read
 * from cache again by the dot products. Every lane reaches every barrier.
 */
const normStats = /* wgsl */ `  let statRow = li / NORM_LANES;
  let statLane = li % NORM_LANES;
  let statSrc = min(m0 + statRow, rows - 1u) * K4;
  let width = f32(K4 * 4u);
  var part = 0.0;
  for (var k = statLane; k < K4; k += NORM_LANES) { let v = x[statSrc + k]; part += v.x + v.y + v.z + v.w; }
  normSums[li] = part;
  workgroupBarrier();
  for (var half = NORM_LANES / 2u; half > 0u; half = half / 2u) {
    if (statLane < half) { normSums[li] += normSums[li + half]; }
    workgroupBarrier();
  }
  let mean = normSums[statRow * NORM_LANES] / width;
  workgroupBarrier(); // every lane has read the sum before the second pass overwrites it
  part = 0.0;
  for (var k = statLane; k < K4; k += NORM_LANES) { let d = x[statSrc + k] - vec4f(mean); part += dot(d, d); }
  normSums[li] = part;
  workgroupBarrier();
  for (var half = NORM_LANES / 2u; half > 0u; half = half / 2u) {
    if (statLane < half) { normSums[li] += normSums[li + half]; }
    workgroupBarrier();
  }
  if (statLane == 0u) { normStats[statRow] = vec2f(mean, inverseSqrt(normSums[li] / width + EPS)); }
  workgroupBarrier();
  var rowMean: array<f32, TM>;
  var rowRstd: array<f32, TM>;
  for (var i = 0u; i < TM; i++) {
    rowMean[i] = normStats[i].x;
    rowRstd[i] = normStats[i].y;
  }
`;
