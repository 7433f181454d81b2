// The contract every backend (cpu, webgpu, sim) implements. The engine builds one flat,
// ragged batch per step; the backend runs one forward pass over it, reading and writing K/V
// through the block tables into its paged pool, and samples one token per requested row.

import type { ModelConfig } from '../model/model-config.ts';

export interface KvLayout {
  numBlocks: number;
  /** Tokens per block. */
  blockSize: number;
}

export interface ForwardBatch {
  /** T tokens of S sequences laid end to end: decode tokens and prefill chunks alike. */
  tokenIds: Int32Array; // [T]
  /** Absolute position of each token in its sequence. */
  positions: Int32Array; // [T]
  /** Pool slot (block * blockSize + offset) where each token's K and V are written. */
  slotMapping: Int32Array; // [T]
  /** Offsets of each sequence's tokens in the flat batch. */
  queryStart: Int32Array; // [S + 1]
  /** Context length of each sequence after this step (cached prefix + new tokens). */
  contextLens: Int32Array; // [S]
  /** Row-major [S, maxBlocksPerSeq], unused entries -1. */
  blockTables: Int32Array;
  maxBlocksPerSeq: number;
  /** Sequences that need a token sampled this step (finished prefill or decoding), as indices < S. */
  sampleSeqs: Int32Array; // [R]
  /** Per sampled row: temperature (0 = greedy), top-k (0 = off), top-p (1 = off), a uniform draw in [0, 1). */
  temperature: Float32Array; // [R]
  topK: Int32Array; // [R]
  topP: Float32Array; // [R]
  uniform: Float32Array; // [R]
}

export interface StepResult {
  /** One sampled token per row of sampleSeqs. */
  tokens: Int32Array;
  /** Logits [R, vocab], only when the backend was created with keepLogits (tests). */
  logits?: Float32Array;
}

export interface Backend {
  readonly name: 'cpu' | 'webgpu' | 'sim';
  /** Human-readable device, e.g. "2 threads, x64" or the adapter's description. */
  readonly device: string;
  readonly config: ModelConfig;
  readonly kv: KvLayout;
  step(batch: ForwardBatch): Promise<StepResult>;
  close(): Promise<void>;
}
