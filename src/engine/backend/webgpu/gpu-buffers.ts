// The per-step buffers: batch inputs, activations, logits, the sampled ids and their readback
// copies, sized for a capacity that only grows (doubling, like the CPU backend), and the paged
// KV pool, one K and one V buffer per layer so no single binding outgrows the adapter's limit.

import type { ModelConfig } from '../../model/model-config.ts';
import type { Capacity } from '../capacity.ts';
import type { KvLayout } from '../backend.ts';
import { BufferUsage } from './device.ts';
import { argmaxPartialCount } from './shaders/argmax.wgsl.ts';

export interface Activations {
  capacity: Capacity;
  step: GPUBuffer; // StepParams uniform
  tokenIds: GPUBuffer;
  positions: GPUBuffer;
  slotMapping: GPUBuffer;
  tokenSeq: GPUBuffer;
  queryStart: GPUBuffer;
  blockTables: GPUBuffer;
  sampleSeqs: GPUBuffer;
  rowParams: GPUBuffer; // vec4 per row: temperature, topK, topP, uniform
  x: GPUBuffer;
  xn: GPUBuffer;
  qkv: GPUBuffer;
  attn: GPUBuffer;
  hidden: GPUBuffer;
  final: GPUBuffer;
  logits: GPUBuffer;
  argmaxPartials: GPUBuffer;
  sampled: GPUBuffer;
  sampledRead: GPUBuffer;
  logitsRead?: GPUBuffer;
  all: GPUBuffer[];
}

export interface KvPool {
  k: GPUBuffer[];
  v: GPUBuffer[];
}

/** Logits rows are padded to a multiple of 4 for the vec4 LM head. */
export function logitsStride(config: ModelConfig): number {
  return Math.ceil(config.vocabSize / 4) * 4;
}

export function allocateActivations(device: GPUDevice, config: ModelConfig, capacity: Capacity, keepLogits: boolean): Activations {
  const all: GPUBuffer[] = [];
  const make = (label: string, bytes: number, usage: number): GPUBuffer => {
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    if (usage & BufferUsage.STORAGE && size > device.limits.maxStorageBufferBindingSize) {
      throw new Error(`webgpu backend: ${label} needs ${size} bytes, over the adapter's storage binding limit of ${device.limits.maxStorageBufferBindingSize}; lower the step's token budget`);
    }
    const buffer = device.createBuffer({ label, size, usage });
    all.push(buffer);
    return buffer;
  };
  const input = BufferUsage.STORAGE | BufferUsage.COPY_DST;
  const scratch = BufferUsage.STORAGE;
  const readable = BufferUsage.STORAGE | BufferUsage.COPY_SRC;
  const c = config.nEmbd;
  const { tokens, seqs, rows } = capacity;
  const acts: Activations = {
    capacity,
    step: make('step params', 16, BufferUsage.UNIFORM | BufferUsage.COPY_DST),
    tokenIds: make('token ids', tokens * 4, input),
    positions: make('positions', tokens * 4, input),
    slotMapping: make('slot mapping', tokens * 4, input),
    tokenSeq: make('token sequence', tokens * 4, input),
    queryStart: make('query start', (seqs + 1) * 4, input),
    blockTables: make('block tables', capacity.blockTableEntries * 4, input),
    sampleSeqs: make('sample sequences', rows * 4, input),
    rowParams: make('sampling params', rows * 16, input),
    x: make('residual stream', tokens * c * 4, scratch),
    xn: make('normalised', tokens * c * 4, scratch),
    qkv: make('qkv', tokens * 3 * c * 4, scratch),
    attn: make('attention out', tokens * c * 4, scratch),
    hidden: make('mlp hidden', tokens * 4 * c * 4, scratch),
    final: make('final norm', rows * c * 4, scratch),
    logits: make('logits', rows * logitsStride(config) * 4, readable),
    argmaxPartials: make('argmax partials', rows * argmaxPartialCount(config.vocabSize) * 8, scratch),
    sampled: make('sampled ids', rows * 4, readable),
    sampledRead: make('sampled ids readback', rows * 4, BufferUsage.MAP_READ | BufferUsage.COPY_DST),
    all,
  };
  if (keepLogits) acts.logitsRead = make('logits readback', rows * logitsStride(config) * 4, BufferUsage.MAP_READ | BufferUsage.COPY_DST);
  return acts;
}

export function allocateKvPool(device: GPUDevice, config: ModelConfig, kv: KvLayout): KvPool {
  const bytes = kv.numBlocks * kv.blockSize * config.nEmbd * 4;
  const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
  if (bytes > limit) {
    const maxBlocks = Math.floor(limit / (kv.blockSize * config.nEmbd * 4));
    throw new Error(`webgpu backend: a layer's K pool of ${kv.numBlocks} blocks is ${bytes} bytes, over the adapter's binding limit of ${limit}; use at most ${maxBlocks} blocks`);
  }
  const usage = BufferUsage.STORAGE;
  const pool: KvPool = { k: [], v: [] };
  for (let l = 0; l < config.nLayer; l++) {
    pool.k.push(device.createBuffer({ label: `layer ${l} K pool`, size: bytes, usage }));
    pool.v.push(device.createBuffer({ label: `layer ${l} V pool`, size: bytes, usage }));
  }
  return pool;
}
