// The matmul for software adapters (lavapipe): Y[m, n] = X[m, :] . W[:, n], W read from a
// read-only rgba32float storage texture and X shared across each subgroup by broadcasts. Why,
// from how llvmpipe (Mesa 25) compiles a compute shader: every invocation is one SIMD lane; a
// storage-buffer load whose offset is not a compile-time constant (or push constant) becomes a
// loop over the lanes with a bounds-check branch per lane and component (~5 cycles per float
// per lane); a texel load is branch-free and loads 16 bytes per lane (a storage texture's
// load measured 10-40% faster here than a sampled texture's); a subgroupBroadcast from a
// constant lane is one shuffle.
// So each lane owns one texel column of W (4 outputs) for TM rows, and for each block of SG
// vec4s of the inner dimension every lane loads one vec4 of each X row (a different one per
// lane) and the subgroup broadcasts them, instead of every lane loading all of them.
// Measured with bench/webgpu.ts on GPT-2's shapes (GFLOP per CPU-second, 2-vCPU Zen 5, Mesa
// 25.0.7): 2.2-4.4 at 8 rows, 3.1-5.2 at 32, 5.3 at 256, against 1.0-1.5 for the register-blocked
// buffer kernel (matmul.wgsl.ts). Still load-bound: each texel load costs ~8 instructions per
// float and lane, and feeds only TM rows.
// W's texture is its [K, N] row-major data as K rows of N/4 texels: no reordering at upload.

import { epilogueStore } from './epilogue.wgsl.ts';
import { matmulPrelude, refuseNorm, type MatmulShape } from './matmul.wgsl.ts';

export const SUBGROUP_MATMUL_WORKGROUP = 64;

export function matmulSubgroupWgsl(s: MatmulShape, tm: number, sg: number): string {
  refuseNorm(s, 'subgroup');
  const rows = Array.from({ length: tm }, (_, i) => i);
  const setup = rows.map((i) => `  let xr${i} = min(m0 + ${i}u, rows - 1u) * K4;\n  var acc${i} = vec4f(0.0);`).join('\n');
  const loads = rows.map((i) => `    let xs${i} = select(vec4f(0.0), x[xr${i} + ki], inK);`).join('\n');
  let steps = '';
  for (let j = 0; j < sg; j++) {
    steps += `    {\n      let r = min(4u * (kb + ${j}u), 4u * (K4 - 1u));\n`;
    for (let q = 0; q < 4; q++) steps += `      let w${q} = textureLoad(w, vec2u(wn, r + ${q}u));\n`;
    for (const i of rows) {
      steps += `      let b${i} = subgroupBroadcast(xs${i}, ${j}u);\n`;
      steps += `      acc${i} = fma(vec4f(b${i}.w), w3, fma(vec4f(b${i}.z), w2, fma(vec4f(b${i}.y), w1, fma(vec4f(b${i}.x), w0, acc${i}))));\n`;
    }
    steps += '    }\n';
  }
  const stores = rows.map((i) => `    if (m0 + ${i}u < rows) {\n      let o = (m0 + ${i}u) * LDY4 + YOFF4 + n;\n      let acc = acc${i};\n      ${epilogueStore(s.epilogue, `m0 + ${i}u`)}\n    }`).join('\n');
  return /* wgsl */ `enable subgroups;
${matmulPrelude(s, 'texture')}
@compute @workgroup_size(${SUBGROUP_MATMUL_WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32, @builtin(subgroup_invocation_id) lane: u32) {
  let rows = ${s.rows === 'sampled' ? 'step.rows' : 'step.tokens'};
  let n = wg.x * ${SUBGROUP_MATMUL_WORKGROUP}u + li;
  let wn = min(n, N4 - 1u); // lanes past the last column compute a copy of it and store nothing
  let m0 = wg.y * ${tm}u;
${setup}
  let kEnd = opaque(K4);
  // No early return before the loop: the broadcasts need every lane of the subgroup.
  for (var kb = 0u; kb < kEnd; kb += ${sg}u) {
    let k4 = kb + lane;
    let inK = k4 < K4;
    let ki = min(k4, K4 - 1u);
${loads}
${steps}  }
  if (n < N4) {
${stores}
  }
}
`;
}
