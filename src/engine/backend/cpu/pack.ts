// Copies weights into the shared buffer once, at load: Conv1D matrices [in, out] become
// [out, in] so the matmul reads both operands along contiguous rows.

import type { ModelConfig } from '../../model/model-config.ts';
import type { Weights } from '../../model/weights.ts';
import type { PackedWeights } from './buffers.ts';

export function packWeights(config: ModelConfig, weights: Weights, into: PackedWeights): void {
  const c = config.nEmbd;
  into.wte.set(weights.wte);
  into.wpe.set(weights.wpe);
  into.lnfGamma.set(weights.lnfGamma);
  into.lnfBeta.set(weights.lnfBeta);
  weights.layers.forEach((src, l) => {
    const dst = into.layers[l];
    dst.ln1Gamma.set(src.ln1Gamma);
    dst.ln1Beta.set(src.ln1Beta);
    transpose(src.attnW, c, 3 * c, dst.qkvW);
    dst.qkvB.set(src.attnB);
    transpose(src.attnProjW, c, c, dst.attnProjW);
    dst.attnProjB.set(src.attnProjB);
    dst.ln2Gamma.set(src.ln2Gamma);
    dst.ln2Beta.set(src.ln2Beta);
    transpose(src.fcW, c, 4 * c, dst.fcW);
    dst.fcB.set(src.fcB);
    transpose(src.fcProjW, 4 * c, c, dst.fcProjW);
    dst.fcProjB.set(src.fcProjB);
  });
}

/** src [rows, cols] -> dst [cols, rows], in tiles so both sides stay in cache. */
function transpose(src: Float32Array, rows: number, cols: number, dst: Float32Array): void {
  const tile = 32;
  for (let r0 = 0; r0 < rows; r0 += tile) {
    for (let c0 = 0; c0 < cols; c0 += tile) {
      const rEnd = Math.min(rows, r0 + tile);
      const cEnd = Math.min(cols, c0 + tile);
      for (let r = r0; r < rEnd; r++) {
        for (let col = c0; col < cEnd; col++) dst[col * rows + r] = src[r * cols + col];
      }
    }
  }
}
