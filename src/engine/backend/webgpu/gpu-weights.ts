// Uploads a model's weights once, at load. The linear layers keep Hugging Face's [in, out]
// layout, which is what the matmul kernels read coalesced. The token table is needed twice:
// as rows for the embedding gather and as the LM head's [C, vocab] matrix; one transposed copy
// serves both, split into column chunks that each fit one binding (gpt2's 154 MB table is
// over lavapipe's 128 MiB storage-binding limit).
// Matrices live in storage buffers, or (software adapters, see matmul-subgroup.wgsl.ts) in
// read-only rgba32float storage textures of the same bytes: K rows of N/4 texels.

import type { ModelConfig } from '../../model/model-config.ts';
import type { Weights } from '../../model/weights.ts';
import type { WeightStorage } from './shaders/matmul.wgsl.ts';
import { BufferUsage } from './device.ts';

const TextureUsage = { COPY_DST: 0x2, STORAGE_BINDING: 0x8 } as const;

/** A weight matrix as one of the kernels reads it. */
export type GpuMatrix = GPUBuffer | GPUTexture;

/** What a bind group entry needs for a matrix: the buffer, or a view of the texture. */
export function matrixResource(m: GpuMatrix): GPUBindingResource {
  return 'createView' in m ? m.createView() : { buffer: m };
}

export interface GpuLayerWeights {
  ln1Gamma: GPUBuffer;
  ln1Beta: GPUBuffer;
  qkvW: GpuMatrix;
  qkvB: GPUBuffer;
  projW: GpuMatrix;
  projB: GPUBuffer;
  ln2Gamma: GPUBuffer;
  ln2Beta: GPUBuffer;
  fcW: GpuMatrix;
  fcB: GPUBuffer;
  fcProjW: GpuMatrix;
  fcProjB: GPUBuffer;
}

export interface TokenTableChunk {
  table: GpuMatrix;
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
  storage: WeightStorage;
}

/** Whether every layer matrix fits the adapter's 2-D texture limit (the tallest is fc proj's 4C rows; the token table is chunked to fit). */
export function texturesFit(config: ModelConfig, maxTextureDimension2D: number): boolean {
  return 4 * config.nEmbd <= maxTextureDimension2D;
}

/** The largest token-table chunk in bytes for this storage: a binding, or a texture's width. */
export function tokenTableChunkLimit(device: GPUDevice, config: ModelConfig, storage: WeightStorage): number {
  return storage === 'buffer' ? device.limits.maxStorageBufferBindingSize : 4 * device.limits.maxTextureDimension2D * config.nEmbd * 4;
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

export function uploadWeights(device: GPUDevice, config: ModelConfig, weights: Weights, storage: WeightStorage, chunkBytes?: number): GpuWeights {
  const upload = (data: Float32Array, label: string): GPUBuffer => {
    const buffer = device.createBuffer({ label, size: Math.max(16, Math.ceil(data.byteLength / 16) * 16), usage: BufferUsage.STORAGE | BufferUsage.COPY_DST, mappedAtCreation: true });
    new Float32Array(buffer.getMappedRange()).set(data);
    buffer.unmap();
    return buffer;
  };
  /** A [rows, columns] row-major matrix (columns a multiple of 4). */
  const matrix = (data: Float32Array, rows: number, columns: number, label: string): GpuMatrix => {
    if (storage === 'buffer') return upload(data, label);
    const width = columns / 4;
    const texture = device.createTexture({ label, size: [width, rows], format: 'rgba32float', usage: TextureUsage.STORAGE_BINDING | TextureUsage.COPY_DST });
    device.queue.writeTexture({ texture }, data.buffer, { offset: data.byteOffset, bytesPerRow: columns * 4, rowsPerImage: rows }, [width, rows]);
    return texture;
  };
  const c = config.nEmbd;
  const limit = Math.min(chunkBytes ?? Infinity, tokenTableChunkLimit(device, config, storage));
  const wteChunks = tokenTableChunks(config, limit).map((chunk, i) => {
    const transposed = new Float32Array(c * chunk.stride);
    for (let v = 0; v < chunk.size; v++) {
      const row = (chunk.start + v) * c;
      for (let j = 0; j < c; j++) transposed[j * chunk.stride + v] = weights.wte[row + j];
    }
    return { ...chunk, table: matrix(transposed, c, chunk.stride, `wte chunk ${i}`) };
  });
  const layers = weights.layers.map((w, l) => ({
    ln1Gamma: upload(w.ln1Gamma, `layer ${l} ln1 gamma`),
    ln1Beta: upload(w.ln1Beta, `layer ${l} ln1 beta`),
    qkvW: matrix(w.attnW, c, 3 * c, `layer ${l} qkv weight`),
    qkvB: upload(w.attnB, `layer ${l} qkv bias`),
    projW: matrix(w.attnProjW, c, c, `layer ${l} attn proj weight`),
    projB: upload(w.attnProjB, `layer ${l} attn proj bias`),
    ln2Gamma: upload(w.ln2Gamma, `layer ${l} ln2 gamma`),
    ln2Beta: upload(w.ln2Beta, `layer ${l} ln2 beta`),
    fcW: matrix(w.fcW, c, 4 * c, `layer ${l} fc weight`),
    fcB: upload(w.fcB, `layer ${l} fc bias`),
    fcProjW: matrix(w.fcProjW, 4 * c, c, `layer ${l} fc proj weight`),
    fcProjB: upload(w.fcProjB, `layer ${l} fc proj bias`),
  }));
  return {
    wpe: upload(weights.wpe, 'wpe'),
    wteChunks,
    lnfGamma: upload(weights.lnfGamma, 'lnf gamma'),
    lnfBeta: upload(weights.lnfBeta, 'lnf beta'),
    layers,
    storage,
  };
}
