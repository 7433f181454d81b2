// x[t] = wte[token] + wpe[position]. The token table is stored transposed, [C, columns], for
// the LM head's coalesced loads, and split into column chunks when it is bigger than one
// storage binding may be: each chunk's dispatch fills the rows whose token falls in it, so
// every row is written exactly once. With texture weights (software adapters) a chunk is an
// read-only rgba32float storage texture of C rows of stride/4 texels, the same bytes.

import { FLAT_INDEX, STEP_PARAMS } from './common.wgsl.ts';
import type { WeightStorage } from './matmul.wgsl.ts';

export const EMBED_WORKGROUP = 64;

export interface EmbedShape {
  c: number;
  /** First token id of this chunk, its number of ids, and its row stride (padded). */
  chunkStart: number;
  chunkSize: number;
  chunkStride: number;
}

export function embedWgsl(s: EmbedShape, storage: WeightStorage = 'buffer'): string {
  const table = storage === 'buffer' ? '@group(0) @binding(3) var<storage, read> wteT: array<f32>;' : '@group(0) @binding(3) var wteT: texture_storage_2d<rgba32float, read>;';
  const read = storage === 'buffer' ? 'wteT[j * LD + id]' : 'textureLoad(wteT, vec2u(id / 4u, j))[id % 4u]';
  return /* wgsl */ `
${STEP_PARAMS}
${FLAT_INDEX}
@group(0) @binding(0) var<uniform> step: StepParams;
@group(0) @binding(1) var<storage, read> tokenIds: array<u32>;
@group(0) @binding(2) var<storage, read> positions: array<u32>;
${table}
@group(0) @binding(4) var<storage, read> wpe: array<f32>;
@group(0) @binding(5) var<storage, read_write> x: array<f32>;

const C = ${s.c}u;
const V0 = ${s.chunkStart}u;
const VN = ${s.chunkSize}u;
const LD = ${s.chunkStride}u;

@compute @workgroup_size(${EMBED_WORKGROUP})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32, @builtin(num_workgroups) grid: vec3u) {
  let i = flatIndex(wg, li, grid, ${EMBED_WORKGROUP}u);
  if (i >= step.tokens * C) { return; }
  let t = i / C;
  let j = i % C;
  let id = tokenIds[t] - V0; // wraps to a huge value below the chunk
  if (id >= VN) { return; }
  x[i] = ${read} + wpe[positions[t] * C + j];
}
`;
}
