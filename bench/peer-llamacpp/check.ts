// Is the GGUF file the same model kb runs? Greedy-decode a few tokens on both sides from the
// same prompt ids and compare, step by step, the chosen token and the next-token probabilities
// (llama.cpp's as node-llama-cpp reports them, kb's as the softmax of the cpu backend's logits).
// Synthetic weights give a nearly flat distribution, so two correct fp32 implementations may
// pick different tokens at a near-tie; the probabilities tell a tie from a wrong layout, which
// would put them off by orders of magnitude rather than in the fourth digit.

import { createCpuBackend } from '../../src/engine/backend/cpu/cpu-backend.ts';
import type { ForwardBatch } from '../../src/engine/backend/backend.ts';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import type { Weights } from '../../src/engine/model/weights.ts';
import { F32_KV_CACHE, type LlamaModel } from './node-llama-cpp.ts';

const BLOCK_SIZE = 16;
/** llama.cpp's most likely tokens compared at each step. */
const TOP = 10;

export interface CheckStep {
  llamaToken: number;
  kbToken: number;
  /** Largest |p_llama - p_kb| / p_kb over llama.cpp's top tokens. */
  maxRelProbDiff: number;
  /** llama.cpp's probability of its pick and of kb's pick: a near-tie when these are close. */
  llamaProbOfLlamaToken: number;
  llamaProbOfKbToken: number;
}

export interface CheckResult {
  steps: CheckStep[];
  /** Steps before the first disagreement. */
  matchingTokens: number;
}

/** One sequence of `tokens.length` tokens, the last `count` of them new, greedy. */
function singleSequenceBatch(tokens: number[], count: number): ForwardBatch {
  const blocks = Array.from({ length: Math.ceil(tokens.length / BLOCK_SIZE) }, (_, i) => i);
  const start = tokens.length - count;
  const positions = Int32Array.from({ length: count }, (_, i) => start + i);
  return {
    tokenIds: Int32Array.from(tokens.slice(start)),
    positions,
    slotMapping: positions.slice(),
    queryStart: Int32Array.from([0, count]),
    contextLens: Int32Array.from([tokens.length]),
    blockTables: Int32Array.from(blocks),
    maxBlocksPerSeq: blocks.length,
    sampleSeqs: Int32Array.from([0]),
    temperature: new Float32Array(1),
    topK: new Int32Array(1),
    topP: new Float32Array(1).fill(1),
    uniform: new Float32Array(1),
  };
}

function softmax(logits: Float32Array): Float64Array {
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x);
  const out = new Float64Array(logits.length);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += out[i] = Math.exp(logits[i] - max);
  for (let i = 0; i < out.length; i++) out[i] /= sum;
  return out;
}

/** kb's greedy tokens and next-token probabilities, from the cpu backend the engine uses. */
async function kbSteps(config: ModelConfig, weights: Weights, promptIds: number[], steps: number, threads: number) {
  const numBlocks = Math.ceil((promptIds.length + steps) / BLOCK_SIZE);
  const backend = await createCpuBackend({ config, weights, kv: { numBlocks, blockSize: BLOCK_SIZE }, threads, keepLogits: true, maxBatchTokens: promptIds.length });
  try {
    const tokens = [...promptIds];
    const out: { token: number; probs: Float64Array }[] = [];
    let fresh = promptIds.length;
    for (let s = 0; s < steps; s++) {
      const result = await backend.step(singleSequenceBatch(tokens, fresh));
      out.push({ token: result.tokens[0], probs: softmax(result.logits!) });
      tokens.push(result.tokens[0]);
      fresh = 1;
    }
    return out;
  } finally {
    await backend.close();
  }
}

async function llamaSteps(model: LlamaModel, promptIds: number[], steps: number, threads: number) {
  const context = await model.createContext({ contextSize: promptIds.length + steps + 1, batchSize: promptIds.length, threads, sequences: 1, ...F32_KV_CACHE });
  try {
    const out: { token: number; probabilities: Map<number, number> }[] = [];
    const stream = context.getSequence().evaluateWithMetadata(promptIds, { probabilities: true }, { temperature: 0 });
    for await (const step of stream) {
      out.push(step);
      if (out.length >= steps) break;
    }
    return out;
  } finally {
    await context.dispose();
  }
}

export async function checkSameModel(
  model: LlamaModel,
  config: ModelConfig,
  weights: Weights,
  promptIds: number[],
  steps: number,
  threads: number,
): Promise<CheckResult> {
  const llama = await llamaSteps(model, promptIds, steps, threads);
  const kb = await kbSteps(config, weights, promptIds, steps, threads);
  const result: CheckStep[] = [];
  let matchingTokens = 0;
  for (let s = 0; s < Math.min(llama.length, kb.length); s++) {
    const top = [...llama[s].probabilities.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP);
    let maxRel = 0;
    for (const [token, p] of top) maxRel = Math.max(maxRel, Math.abs(p - kb[s].probs[token]) / kb[s].probs[token]);
    result.push({
      llamaToken: llama[s].token,
      kbToken: kb[s].token,
      maxRelProbDiff: maxRel,
      llamaProbOfLlamaToken: llama[s].probabilities.get(llama[s].token) ?? 0,
      llamaProbOfKbToken: llama[s].probabilities.get(kb[s].token) ?? 0,
    });
    // After a disagreement the two sides continue from different texts: stop comparing.
    if (llama[s].token !== kb[s].token) break;
    matchingTokens++;
  }
  return { steps: result, matchingTokens };
}
