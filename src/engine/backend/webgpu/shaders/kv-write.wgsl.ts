// Copies each token's K and V (the second and third thirds of its qkv row) into the paged pool
// at the slot the engine mapped it to. Runs after the QKV matmul and before attention, so a
// prefill chunk sees its own keys through the same block-table path as the cached prefix.

import { FLAT_INDEX, STEP_PARAMS } from './common.wgsl.ts';

export const KV_WRITE_WORKGROUP = 64;

export function kvWriteWgsl(c: number): string {
  return /* wgsl */ `
${STEP_PARAMS}
${FLAT_INDEX}
@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> qkv: array<vec4f>;
@group(0) @binding(2) var<storage, read> slotMapping: array<u32>;
@group(0) @binding(3) var<storage, read_write> kPool: array<vec4f>;
@group(0) @binding(4) var<storage, read_write> vPool: array<vec4f>;

const C4 = ${c / 4}u;

@compute @workgroup_size(${KV_WRITE_WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32, @builtin(num_workgroups) grid: vec3u) {
  let i = flatIndex(wg, li, grid, ${KV_WRITE_WORKGROUP}u);
  if (i >= step.tokens * C4) { return; }
  let t = i / C4;
  let j = i % C4;
  let dst = slotMapping[t] * C4 + j;
  kPool[dst] = qkv[t * 3u * C4 + C4 + j];
  vPool[dst] = qkv[t * 3u * C4 + 2u * C4 + j];
}
`;
}
