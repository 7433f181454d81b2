// The few-row matmul for real GPUs (decode, and prefill below the tiled kernel's threshold):
// the register-blocked kernel (matmul.wgsl.ts) gives one lane to each vec4 of output columns,
// so GPT-2's 768-wide projections ran as 192 lanes, 3 workgroups, on a GPU of 132
// multiprocessors: an H100 spent ~400 µs on one 3072 x 768 GEMV that streams 9.4 MB, ~24 GB/s.
// Here a workgroup of 256 lanes owns CW vec4 columns and splits K among 256 / CW slices; each
// lane keeps TM rows x one vec4 in registers over its slice, and the slices are summed in
// shared memory, row by row (a tree of log2(KS) barriers), before the epilogue. CW is chosen
// per shape so that a matmul spans 100-200 workgroups, with at least 32 contiguous bytes (one
// memory sector) per W row read.

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

@compute @workgroup_size(${SPLITK_WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
  let rows = ${s.rows === 'sampled' ? 'step.rows' : 'step.tokens'};
  let slice = li / CW;
  let n = wg.x * CW + li % CW;
  let wn = min(n, N4 - 1u); // lanes past the last column sum a copy of it and store nothing
  let m0 = wg.y * TM;
${rowBlockDots(tm, 'wn', 'slice', 'KS')}
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
