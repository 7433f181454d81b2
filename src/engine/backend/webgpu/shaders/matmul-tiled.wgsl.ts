// The prefill GEMM for real GPUs: a 64 x 64 output tile per workgroup of 16 x 16 lanes, each
// lane holding 4 rows x one vec4 of columns, with 64 x 16 slices of X and 16 x 64 slices of W
// staged through shared memory so each global load feeds 64 multiply-adds. Two barriers per
// 16-deep slice: cheap on a GPU, ruinous on lavapipe (which takes matmul.wgsl.ts instead).
// Same bindings and epilogues as the register-blocked kernel, so the two are interchangeable.

import { epilogueStore } from './epilogue.wgsl.ts';
import { matmulPrelude, refuseNorm, type MatmulShape } from './matmul.wgsl.ts';

/** Output rows and columns per workgroup. */
export const TILED_ROWS = 64;
export const TILED_COLS = 64;

export function matmulTiledWgsl(s: MatmulShape): string {
  refuseNorm(s, 'tiled');
  return /* wgsl */ `${matmulPrelude(s)}
var<workgroup> xs: array<vec4f, 256>; // [64 rows][4 vec4 of k]
var<workgroup> ws: array<vec4f, 256>; // [16 k][16 vec4 of columns]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let rows = ${s.rows === 'sampled' ? 'step.rows' : 'step.tokens'};
  let tx = lid.x;
  let ty = lid.y;
  let idx = ty * 16u + tx;
  let m0 = wg.y * 64u;
  let n0 = wg.x * 16u;
  var accs: array<vec4f, 4>;
  let kEnd = opaque(K4);
  for (var k4 = 0u; k4 < kEnd; k4 += 4u) {
    let xr = m0 + idx / 4u;
    let xk = k4 + idx % 4u;
    xs[idx] = select(vec4f(0.0), x[min(xr, rows - 1u) * K4 + min(xk, K4 - 1u)], xr < rows && xk < K4);
    let wk = 4u * k4 + idx / 16u;
    let wn = n0 + idx % 16u;
    ws[idx] = select(vec4f(0.0), w[min(wk, 4u * K4 - 1u) * N4 + min(wn, N4 - 1u)], wk < 4u * K4 && wn < N4);
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) {
      let wv = ws[kk * 16u + tx];
      for (var i = 0u; i < 4u; i++) {
        accs[i] += xs[(ty * 4u + i) * 4u + kk / 4u][kk % 4u] * wv;
      }
    }
    workgroupBarrier();
  }
  let n = n0 + tx;
  if (n >= N4) { return; }
  for (var i = 0u; i < 4u; i++) {
    let m = m0 + ty * 4u + i;
    if (m < rows) {
      let o = m * LDY4 + YOFF4 + n;
      let acc = accs[i];
      ${epilogueStore(s.epilogue, 'm')}
    }
  }
}
`;
}
