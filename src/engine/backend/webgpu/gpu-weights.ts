// Uploads a model's weights once, at load. The linear layers keep Hugging Face's [in, out]
// layout, which is what the matmul kernels read coalesced. The token table is needed twice:
// as rows for the embedding gather and as the LM head's [C, vocab] matrix; one transposed copy
// serves both, split into column chunks that each fit one storage binding (gpt2's 154 MB table
// is over lavapipe's 128 MiB limit).

import type { ModelConfig } from '../../model/config.ts';
import type { Weights } from '../../model/weights.ts';
import { BufferUsage } from './device.ts';

export interface GpuLayerWeights {
  ln1Gamma: GPUBuffer;
  ln1Beta: GPUBuffer;
  qkvW: GPUBuffer;
  qkvB: GPUBuffer;
  projW: GPUBuffer;
  projB: GPUBuffer;
  ln2Gamma: GPUBuffer;
  ln2Beta: GPUBuffer;
  fcW: GPUBuffer;
  fcB: GPUBuffer;
  fcProjW: GPUBuffer;
  fcProjB: GPUBuffer;
}

export interface TokenTableChunk {
  buffer: GPUBuffer;
  /** First token id, number of ids, and the padded row stride (a multiple of 4). */
  start: number;
  size: number;
  stride: number;
}

export interface GpuWeights {
  wpe: GPUBuffer;
  wteChunks: TokenTableChunk[];
  lnfGamma: GPUBuffer;
  lnfBeta: GPUBuffer;
  layers: GpuLayerWeights[];
  buffers: GPUBuffer[];
}

/** Column chunks of the [C, vocab] token table, each within one binding. */
export function tokenTableChunks(config: ModelConfig, maxBindingBytes: number): { start: number; size: number; stride: number }[] {
  const perColumn = config.nEmbd * 4;
  const maxColumns = Math.floor(maxBindingBytes / perColumn / 4) * 4;
  if (maxColumns < 4) throw new Error(`webgpu backend: one token-table column (${perColumn} bytes) exceeds the adapter's storage binding limit`);
  const chunks = [];
  for (let start = 0; start < config.vocabSize; start += maxColumns) {
    const size = Math.min(maxColumns, config.vocabSize - start);
    chunks.push({ start, size, stride: Math.ceil(size / 4) * 4 });
  }
  return chunks;
}

export function uploadWeights(device: GPUDevice, config: ModelConfig, weights: Weights, chunkBytes = device.limits.maxStorageBufferBindingSize): GpuWeights {
  const buffers: GPUBuffer[] = [];
  const upload = (data: Float32Array, label: string): GPUBuffer => {
    const buffer = device.createBuffer({ label, size: Math.max(16, Math.ceil(data.byteLength / 16) * 16), usage: BufferUsage.STORAGE | BufferUsage.COPY_DST, mappedAtCreation: true });
    new Float32Array(buffer.getMappedRange()).set(data);
    buffer.unmap();
    buffers.push(buffer);
    return buffer;
  };
  const c = config.nEmbd;
  const wteChunks = tokenTableChunks(config, Math.min(chunkBytes, device.limits.maxStorageBufferBindingSize)).map((chunk, i) => {
    const transposed = new Float32Array(c * chunk.stride);
    for (let v = 0; v < chunk.size; v++) {
      const row = (chunk.start + v) * c;
      for (let j = 0; j < c; j++) transposed[j * chunk.stride + v] = weights.wte[row + j];
    }
    return { ...chunk, buffer: upload(transposed, `wte chunk ${i}`) };
  });
  const layers = weights.layers.map((w, l) => ({
    ln1Gamma: upload(w.ln1Gamma, `layer ${l} ln1 gamma`),
    ln1Beta: upload(w.ln1Beta, `layer ${l} ln1 beta`),
    qkvW: upload(w.attnW, `layer ${l} qkv weight`),
    qkvB: upload(w.attnB, `layer ${l} qkv bias`),
    projW: upload(w.attnProjW, `layer ${l} attn proj weight`),
    projB: upload(w.attnProjB, `layer ${l} attn proj bias`),
    ln2Gamma: upload(w.ln2Gamma, `layer ${l} ln2 gamma`),
    ln2Beta: upload(w.ln2Beta, `layer ${l} ln2 beta`),
    fcW: upload(w.fcW, `layer ${l} fc weight`),
    fcB: upload(w.fcB, `layer ${l} fc bias`),
    fcProjW: upload(w.fcProjW, `layer ${l} fc proj weight`),
    fcProjB: upload(w.fcProjB, `layer ${l} fc proj bias`),
  }));
  return {
    wpe: upload(weights.wpe, 'wpe'),
    wteChunks,
    lnfGamma: upload(weights.lnfGamma, 'lnf gamma'),
    lnfBeta: upload(weights.lnfBeta, 'lnf beta'),
    layers,
    buffers,
  };
}
