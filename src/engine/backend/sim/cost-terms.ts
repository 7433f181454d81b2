// The fitted cost model: a step takes a fixed time plus a time per unit of each part of its
// shape. Each term stands for something physical, so a fitted profile can be read as a
// description of the machine (and checked against its datasheet), not only used.
import type { StepShape } from './step-shape.ts';

export interface CostTerms {
  /** ms per step, whatever its size: the serving loop, kernel launches, one pass over the weights. */
  stepMs: number;
  /** ms per batched token: its share of the weight matmuls (QKV, projection, MLP). */
  tokenMs: number;
  /** ms per query-key pair: causal attention over the context in the KV cache. */
  attendedMs: number;
  /** ms per sampled row: the LM head (vocabulary x width) and the sampler. */
  sampledMs: number;
  /**
   * ms once per step that prefills anything: engines that run prefill as its own forward pass
   * (often outside the captured CUDA graph that makes decode cheap) pay its launches again.
   */
  prefillPassMs: number;
}

export type CostTerm = keyof CostTerms;

/** The terms in the order fits and reports list them, with the shape each multiplies. */
export const COST_TERMS: readonly { term: CostTerm; unit: string; meaning: string; feature: (s: StepShape) => number }[] = [
  { term: 'stepMs', unit: 'ms/step', meaning: 'fixed per step: serving loop, launches, weight read', feature: () => 1 },
  { term: 'tokenMs', unit: 'ms/token', meaning: 'weight matmuls per batched token', feature: (s) => s.tokens },
  { term: 'attendedMs', unit: 'ms/query-key pair', meaning: 'attention per context token attended', feature: (s) => s.attended },
  { term: 'sampledMs', unit: 'ms/sampled row', meaning: 'LM head and sampling per sequence', feature: (s) => s.sampled },
  { term: 'prefillPassMs', unit: 'ms/step with prefill', meaning: 'a separate prefill pass: its launches and loop', feature: (s) => (s.seqs > s.decodes ? 1 : 0) },
];

export function predictStepMs(terms: CostTerms, shape: StepShape): number {
  let ms = 0;
  for (const { term, feature } of COST_TERMS) ms += terms[term] * feature(shape);
  return ms;
}
