// Shared by the backend benchmarks (bench/engine-kernels.ts, bench/webgpu.ts): hand-built
// forward batches over a paged KV pool, the FLOPs a token costs, and the median of a run.

import type { ForwardBatch } from '../src/engine/backend/backend.ts';
import type { ModelConfig } from '../src/engine/model/model-config.ts';

/** A sequence as the benchmark tracks it: its tokens so far and the KV blocks it owns. */
export interface Seq {
  tokens: number[];
  blocks: number[];
}

/** `count` sequences, each a `prompt`-token prompt of its own and `blocksPerSeq` consecutive KV blocks. */
export function promptSeqs(count: number, prompt: number, blocksPerSeq: number, vocabSize: number): Seq[] {
  return Array.from({ length: count }, (_, i) => ({
    tokens: Array.from({ length: prompt }, (_, p) => (i * 7919 + p * 31) % vocabSize),
    blocks: Array.from({ length: blocksPerSeq }, (_, k) => i * blocksPerSeq + k),
  }));
}

/**
 * One greedy step: sequence i adds its last `count` (or `count[i]`) tokens after what it
 * already has, its K/V written to slots in its own blocks of `blockSize` tokens.
 */
export function batchOf(seqs: Seq[], count: number | readonly number[], blockSize: number): ForwardBatch {
  const maxBlocks = Math.max(...seqs.map((s) => s.blocks.length));
  const tokenIds: number[] = [];
  const positions: number[] = [];
  const slots: number[] = [];
  const queryStart = [0];
  const blockTables = new Int32Array(seqs.length * maxBlocks).fill(-1);
  seqs.forEach((s, i) => {
    const start = s.tokens.length - (typeof count === 'number' ? count : count[i]);
    for (let p = start; p < s.tokens.length; p++) {
      tokenIds.push(s.tokens[p]);
      positions.push(p);
      slots.push(s.blocks[Math.floor(p / blockSize)] * blockSize + (p % blockSize));
    }
    queryStart.push(tokenIds.length);
    blockTables.set(s.blocks, i * maxBlocks);
  });
  const r = seqs.length;
  return {
    tokenIds: Int32Array.from(tokenIds),
    positions: Int32Array.from(positions),
    slotMapping: Int32Array.from(slots),
    queryStart: Int32Array.from(queryStart),
    contextLens: Int32Array.from(seqs.map((s) => s.tokens.length)),
    blockTables,
    maxBlocksPerSeq: maxBlocks,
    sampleSeqs: Int32Array.from(seqs.map((_, i) => i)),
    temperature: new Float32Array(r),
    topK: new Int32Array(r),
    topP: new Float32Array(r).fill(1),
    uniform: new Float32Array(r),
  };
}

/** FLOPs of the linear layers and attention for one token at position `pos`. */
export function tokenFlops(config: ModelConfig, pos: number): number {
  const c = config.nEmbd;
  return config.nLayer * (2 * 12 * c * c + 4 * (pos + 1) * c);
}

/** FLOPs of the LM head for one sampled row. */
export function lmHeadFlops(config: ModelConfig): number {
  return 2 * config.vocabSize * config.nEmbd;
}

/** FLOPs of one prefill step: `batch` prompts of `prompt` tokens, and the LM head for each. */
export function prefillFlops(config: ModelConfig, batch: number, prompt: number): number {
  let flops = batch * lmHeadFlops(config);
  for (let p = 0; p < prompt; p++) flops += batch * tokenFlops(config, p);
  return flops;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
