// What a step's cost depends on, read off its ragged batch: the counts the fitted cost model
// multiplies by its per-unit times. Both the sim (to predict a step) and the engine's step
// trace (to fit the model from measured steps) use this one definition.
import type { ForwardBatch } from '../backend.ts';

export interface StepShape {
  /** Tokens in the flat batch: decode tokens plus prefill chunks. */
  tokens: number;
  /** Rows that sample a token: the LM head and the sampler run once per row. */
  sampled: number;
  /** Sequences in the batch. */
  seqs: number;
  /** Sequences that add exactly one token to an existing context: decode steps. */
  decodes: number;
  /** Query-key pairs of causal attention: each token attends to its position + 1 keys. */
  attended: number;
}

export function stepShape(batch: ForwardBatch): StepShape {
  let attended = 0;
  for (let t = 0; t < batch.positions.length; t++) attended += batch.positions[t] + 1;
  let decodes = 0;
  const seqs = batch.contextLens.length;
  for (let s = 0; s < seqs; s++) if (batch.queryStart[s + 1] - batch.queryStart[s] === 1 && batch.contextLens[s] > 1) decodes++;
  return { tokens: batch.tokenIds.length, sampled: batch.sampleSeqs.length, seqs, decodes, attended };
}

export type StepKind = 'decode' | 'prefill' | 'mixed';

/** decode: every sequence adds one token; prefill: none does; mixed: both in one step. */
export function stepKind(shape: StepShape): StepKind {
  if (shape.decodes === shape.seqs) return 'decode';
  return shape.decodes === 0 ? 'prefill' : 'mixed';
}

/** Ranges of decode batch size that fits and checks treat as one group: a step's cost per sequence shifts across them. */
export const DECODE_SIZE_RANGES: readonly (readonly [number, number])[] = [[1, 1], [2, 4], [5, 16], [17, 64], [65, 256], [257, Infinity]];

export function decodeSizeLabel([from, to]: readonly [number, number]): string {
  return from === to ? `${from}` : to === Infinity ? `${from}+` : `${from}-${to}`;
}

/** A step's group: its kind, and for decode its range of batch size ("decode 5-16"). */
export function stepGroup(shape: StepShape): string {
  const kind = stepKind(shape);
  if (kind !== 'decode') return kind;
  const range = DECODE_SIZE_RANGES.find(([from, to]) => shape.tokens >= from && shape.tokens <= to)!;
  return `decode ${decodeSizeLabel(range)}`;
}
