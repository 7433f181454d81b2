// Builds ForwardBatch values for tests from a readable description of each sequence.

import type { ForwardBatch } from '../../src/engine/backend/backend.ts';

export interface SeqSpec {
  /** Tokens computed this step. */
  tokens: number[];
  /** Position of tokens[0]: how many tokens of this sequence are already in the pool. */
  start: number;
  /** Pool blocks of this sequence, in order. */
  blocks: number[];
  /** Sample a token after this chunk (default true). */
  sample?: boolean;
  temperature?: number;
  topK?: number;
  topP?: number;
  uniform?: number;
}

export function buildBatch(seqs: SeqSpec[], blockSize: number): ForwardBatch {
  const maxBlocksPerSeq = Math.max(...seqs.map((s) => s.blocks.length));
  const tokenIds: number[] = [];
  const positions: number[] = [];
  const slotMapping: number[] = [];
  const queryStart = [0];
  const contextLens: number[] = [];
  const blockTables = new Int32Array(seqs.length * maxBlocksPerSeq).fill(-1);
  const sampled: number[] = [];
  seqs.forEach((s, i) => {
    s.tokens.forEach((tok, j) => {
      const pos = s.start + j;
      tokenIds.push(tok);
      positions.push(pos);
      slotMapping.push(s.blocks[Math.floor(pos / blockSize)] * blockSize + (pos % blockSize));
    });
    queryStart.push(tokenIds.length);
    contextLens.push(s.start + s.tokens.length);
    blockTables.set(s.blocks, i * maxBlocksPerSeq);
    if (s.sample ?? true) sampled.push(i);
  });
  const rows = sampled.map((i) => seqs[i]);
  return {
    tokenIds: Int32Array.from(tokenIds),
    positions: Int32Array.from(positions),
    slotMapping: Int32Array.from(slotMapping),
    queryStart: Int32Array.from(queryStart),
    contextLens: Int32Array.from(contextLens),
    blockTables,
    maxBlocksPerSeq,
    sampleSeqs: Int32Array.from(sampled),
    temperature: Float32Array.from(rows.map((s) => s.temperature ?? 0)),
    topK: Int32Array.from(rows.map((s) => s.topK ?? 0)),
    topP: Float32Array.from(rows.map((s) => s.topP ?? 1)),
    uniform: Float32Array.from(rows.map((s) => s.uniform ?? 0)),
  };
}

/** max |a - b| / max |b| over one row of logits. */
export function relativeError(actual: Float32Array, actualOffset: number, expected: Float64Array, expectedOffset: number, n: number): number {
  let err = 0;
  let scale = 0;
  for (let i = 0; i < n; i++) {
    err = Math.max(err, Math.abs(actual[actualOffset + i] - expected[expectedOffset + i]));
    scale = Math.max(scale, Math.abs(expected[expectedOffset + i]));
  }
  return err / scale;
}
