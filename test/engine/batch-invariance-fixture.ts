// The engine issue's batch-invariance scenario, shared by the cpu and webgpu engine tests: a
// tiny GPT-2 whose output depends on the whole context, eight prompts in two families that
// share a 24-token prefix (prefix cache), and each prompt's greedy tokens run alone.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type EngineOptions } from '../../src/engine/index.ts';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { writeSafetensorsWeights } from '../../src/engine/model/safetensors.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';

export const config: ModelConfig = { name: 'tiny', vocabSize: 211, nCtx: 96, nEmbd: 32, nLayer: 2, nHead: 4, layerNormEps: 1e-5 };
const BLOCK_WEIGHT_SCALE = 30;

/** Writes the model (config.json, model.safetensors) into a new temporary folder; returns it. */
export function writeContextSensitiveModel(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ model_type: 'gpt2', vocab_size: config.vocabSize, n_positions: config.nCtx, n_embd: config.nEmbd, n_layer: config.nLayer, n_head: config.nHead }),
  );
  // GPT-2's initial scale (std 0.02) leaves each block a tiny change to the residual stream, so
  // the tied head just echoes the last token. Larger block weights make the output depend on
  // the whole context, which is what these tests must see through the paged K/V.
  const weights = syntheticWeights(config, 5);
  for (const layer of weights.layers) {
    for (const w of [layer.attnW, layer.attnProjW, layer.fcW, layer.fcProjW]) for (let i = 0; i < w.length; i++) w[i] *= BLOCK_WEIGHT_SCALE;
  }
  writeSafetensorsWeights(join(dir, 'model.safetensors'), config, weights);
  return dir;
}

/** Eight prompts: two families sharing a 24-token prefix (prefix cache), lengths 26..47. */
export const prompts = Array.from({ length: 8 }, (_, i) => [
  ...Array.from({ length: 24 }, (_, j) => ((i % 2) * 50 + j * 7) % config.vocabSize),
  ...Array.from({ length: 2 + i * 3 }, (_, j) => (i * 17 + j * 5 + 1) % config.vocabSize),
]);
export const maxNewTokens = 10;

/** 20 blocks of 4 tokens cannot hold eight 36..57-token sequences: preemption is forced. */
export const crowdedEngine = {
  numBlocks: 20,
  blockSize: 4,
  scheduler: { maxBatchedTokens: 40, chunkSize: 12, maxNumSeqs: 8, prefillMaxBatch: 3 },
} satisfies Partial<EngineOptions>;

/** Each prompt's greedy tokens on the cpu backend, one request at a time, no prefix cache. */
export async function greedyAlone(dir: string): Promise<number[][]> {
  const alone: number[][] = [];
  const solo = await createEngine({ weightsDir: dir, threads: 1, numBlocks: 64, blockSize: 4, prefixCaching: false, scheduler: { chunkSize: 0 } });
  try {
    for (const promptIds of prompts) alone.push((await solo.submit({ promptIds, maxNewTokens }).done).outputIds);
  } finally {
    await solo.close();
  }
  return alone;
}
