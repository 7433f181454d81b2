// How big a backend's per-step buffers are (activations, batch inputs): sized for a capacity
// that only grows. Both backends plan it the same way; only how they reallocate differs.
import type { ModelConfig } from '../model/model-config.ts';
import type { ForwardBatch, KvLayout } from './backend.ts';

/** Upper bounds the activation buffers are sized for; a bigger batch reallocates them. */
export interface Capacity {
  tokens: number;
  seqs: number;
  rows: number;
  blockTableEntries: number;
}

/** The first capacity: `tokens` batched tokens, as many sequences (at most 256), each up to nCtx long. */
export function initialCapacity(config: ModelConfig, kv: KvLayout, tokens: number): Capacity {
  const seqs = Math.min(256, Math.max(1, tokens));
  return { tokens: Math.max(1, tokens), seqs, rows: seqs, blockTableEntries: seqs * Math.ceil(config.nCtx / kv.blockSize) };
}

/** Doubling keeps regrowth rare when batches creep up a token at a time. */
function grow(have: number, need: number): number {
  return need <= have ? have : Math.max(need, 2 * have);
}

/** The capacity to reallocate for `batch`, or null when `have` already holds it. */
export function grownCapacity(have: Capacity, batch: ForwardBatch): Capacity | null {
  const seqs = batch.queryStart.length - 1;
  const need: Capacity = { tokens: batch.tokenIds.length, seqs, rows: batch.sampleSeqs.length, blockTableEntries: seqs * batch.maxBlocksPerSeq };
  if (need.tokens <= have.tokens && need.seqs <= have.seqs && need.rows <= have.rows && need.blockTableEntries <= have.blockTableEntries) return null;
  return {
    tokens: grow(have.tokens, need.tokens),
    seqs: grow(have.seqs, need.seqs),
    rows: grow(have.rows, need.rows),
    blockTableEntries: grow(have.blockTableEntries, need.blockTableEntries),
  };
}
