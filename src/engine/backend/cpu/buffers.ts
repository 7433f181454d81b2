// Everything the threads share lives in one shared WebAssembly.Memory, so the SIMD kernels can
// reach it: the packed weights, the paged KV pool, and the activations and batch inputs of one
// step. Each thread builds the same views from the same layout, so a tensor is named once here.

import type { ModelConfig } from '../../model/model-config.ts';
import type { Capacity } from '../capacity.ts';
import type { KvLayout } from '../backend.ts';

/** Linear weights are transposed to [out, in] so every output is a dot of two contiguous rows. */
export interface PackedLayer {
  ln1Gamma: Float32Array;
  ln1Beta: Float32Array;
  qkvW: Float32Array; // [3C, C]
  qkvB: Float32Array;
  attnProjW: Float32Array; // [C, C]
  attnProjB: Float32Array;
  ln2Gamma: Float32Array;
  ln2Beta: Float32Array;
  fcW: Float32Array; // [4C, C]
  fcB: Float32Array;
  fcProjW: Float32Array; // [C, 4C]
  fcProjB: Float32Array;
}

export interface PackedWeights {
  wte: Float32Array; // [vocab, C]: embedding rows, and already [out, in] for the LM head
  wpe: Float32Array; // [nCtx, C]
  layers: PackedLayer[];
  lnfGamma: Float32Array;
  lnfBeta: Float32Array;
  zeroBias: Float32Array; // [vocab] of zeros: the tied LM head has no bias
}

export interface Activations {
  x: Float32Array; // [T, C] residual stream
  xn: Float32Array; // [T, C] LayerNorm output
  qkv: Float32Array; // [T, 3C]
  attn: Float32Array; // [T, C]
  hidden: Float32Array; // [T, 4C]
  final: Float32Array; // [R, C] last hidden state of each sampled row, normalized
  logits: Float32Array; // [R, vocab]
  tokenIds: Int32Array;
  positions: Int32Array;
  slotMapping: Int32Array;
  tokenSeq: Int32Array; // [T] which sequence each token belongs to
  queryStart: Int32Array;
  contextLens: Int32Array;
  blockTables: Int32Array;
  sampleSeqs: Int32Array;
  temperature: Float32Array;
  topK: Int32Array;
  topP: Float32Array;
  uniform: Float32Array;
  sampled: Int32Array; // [R] output tokens
}

export interface KvPool {
  k: Float32Array; // [nLayer, numBlocks, nHead, blockSize, hd]: see kv-write.ts
  v: Float32Array;
}

/** Hands out consecutive views, each 64-byte aligned (a cache line, and SIMD-friendly); with
 *  no buffer it only measures. Offsets are in bytes, as WebAssembly pointers are. */
class Carver {
  offset: number;
  readonly buffer: SharedArrayBuffer | null;
  constructor(buffer: SharedArrayBuffer | null, offset: number) {
    this.buffer = buffer;
    this.offset = offset;
  }
  f32(n: number): Float32Array {
    const view = this.buffer ? new Float32Array(this.buffer, this.offset, n) : new Float32Array(0);
    this.offset = align(this.offset + 4 * n);
    return view;
  }
  i32(n: number): Int32Array {
    const view = this.buffer ? new Int32Array(this.buffer, this.offset, n) : new Int32Array(0);
    this.offset = align(this.offset + 4 * n);
    return view;
  }
}

const ALIGN = 64;

function align(bytes: number): number {
  return Math.ceil(bytes / ALIGN) * ALIGN;
}

function carveWeights(config: ModelConfig, carve: Carver): PackedWeights {
  const c = config.nEmbd;
  const wte = carve.f32(config.vocabSize * c);
  const wpe = carve.f32(config.nCtx * c);
  const layers: PackedLayer[] = [];
  for (let l = 0; l < config.nLayer; l++) {
    layers.push({
      ln1Gamma: carve.f32(c),
      ln1Beta: carve.f32(c),
      qkvW: carve.f32(3 * c * c),
      qkvB: carve.f32(3 * c),
      attnProjW: carve.f32(c * c),
      attnProjB: carve.f32(c),
      ln2Gamma: carve.f32(c),
      ln2Beta: carve.f32(c),
      fcW: carve.f32(4 * c * c),
      fcB: carve.f32(4 * c),
      fcProjW: carve.f32(4 * c * c),
      fcProjB: carve.f32(c),
    });
  }
  return { wte, wpe, layers, lnfGamma: carve.f32(c), lnfBeta: carve.f32(c), zeroBias: carve.f32(config.vocabSize) };
}

function carveActivations(config: ModelConfig, cap: Capacity, carve: Carver): Activations {
  const c = config.nEmbd;
  return {
    x: carve.f32(cap.tokens * c),
    xn: carve.f32(cap.tokens * c),
    qkv: carve.f32(cap.tokens * 3 * c),
    attn: carve.f32(cap.tokens * c),
    hidden: carve.f32(cap.tokens * 4 * c),
    final: carve.f32(cap.rows * c),
    logits: carve.f32(cap.rows * config.vocabSize),
    tokenIds: carve.i32(cap.tokens),
    positions: carve.i32(cap.tokens),
    slotMapping: carve.i32(cap.tokens),
    tokenSeq: carve.i32(cap.tokens),
    queryStart: carve.i32(cap.seqs + 1),
    contextLens: carve.i32(cap.seqs),
    blockTables: carve.i32(cap.blockTableEntries),
    sampleSeqs: carve.i32(cap.rows),
    temperature: carve.f32(cap.rows),
    topK: carve.i32(cap.rows),
    topP: carve.f32(cap.rows),
    uniform: carve.f32(cap.rows),
    sampled: carve.i32(cap.rows),
  };
}

/**
 * Where each region sits in the one shared memory (byte offsets). The weights come first, then
 * the K and V pools, then the activations; a grow appends a bigger activation region at the end.
 */
export interface MemoryLayout {
  weights: number;
  kvK: number;
  kvV: number;
  /** Per-thread scratch (attention scores; after the layers, a row's sampling weights), scratchBytesPerThread each. */
  scratch: number;
  scratchBytesPerThread: number;
  activations: number;
  capacity: Capacity;
  /** First byte past the activations. */
  end: number;
}

export function planLayout(config: ModelConfig, kv: KvLayout, capacity: Capacity, nThreads: number): MemoryLayout {
  const weights = ALIGN;
  const counter = new Carver(null, weights);
  carveWeights(config, counter);
  const kvK = counter.offset;
  counter.f32(kvPoolLength(config, kv));
  const kvV = counter.offset;
  counter.f32(kvPoolLength(config, kv));
  const scratch = counter.offset;
  const scratchBytesPerThread = align(4 * Math.max(config.nCtx, config.vocabSize));
  const layout = { weights, kvK, kvV, scratch, scratchBytesPerThread, activations: 0, capacity, end: 0 };
  return withActivations(config, layout, scratch + nThreads * scratchBytesPerThread, capacity);
}

/** The same layout with the activations moved to `at` and sized for `capacity`. */
export function withActivations(config: ModelConfig, layout: MemoryLayout, at: number, capacity: Capacity): MemoryLayout {
  const counter = new Carver(null, align(at));
  carveActivations(config, capacity, counter);
  return { ...layout, activations: align(at), capacity, end: counter.offset };
}

export function weightViews(config: ModelConfig, buffer: SharedArrayBuffer, layout: MemoryLayout): PackedWeights {
  return carveWeights(config, new Carver(buffer, layout.weights));
}

export function activationViews(config: ModelConfig, buffer: SharedArrayBuffer, layout: MemoryLayout): Activations {
  return carveActivations(config, layout.capacity, new Carver(buffer, layout.activations));
}

/** Floats in one of the K or V pools. */
export function kvPoolLength(config: ModelConfig, kv: KvLayout): number {
  return config.nLayer * kv.numBlocks * kv.blockSize * config.nEmbd;
}

export function kvViews(config: ModelConfig, kv: KvLayout, buffer: SharedArrayBuffer, layout: MemoryLayout): KvPool {
  const n = kvPoolLength(config, kv);
  return { k: new Float32Array(buffer, layout.kvK, n), v: new Float32Array(buffer, layout.kvV, n) };
}
