// The real model under the engine: batching, chunked prefill, prefix caching and preemption
// must not change a single greedy token.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.ts';
import { timelineInOrder } from '../../src/engine/metrics/timeline.ts';
import type { ModelConfig } from '../../src/engine/model/config.ts';
import { writeSafetensorsWeights } from '../../src/engine/model/safetensors.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';

const config: ModelConfig = { name: 'tiny', vocabSize: 211, nCtx: 96, nEmbd: 32, nLayer: 2, nHead: 4, layerNormEps: 1e-5 };
const BLOCK_WEIGHT_SCALE = 30;
const dir = mkdtempSync(join(tmpdir(), 'kb-engine-cpu-'));
writeFileSync(
  join(dir, 'config.json'),
  JSON.stringify({ model_type: 'gpt2', vocab_size: config.vocabSize, n_positions: config.nCtx, n_embd: config.nEmbd, n_layer: config.nLayer, n_head: config.nHead }),
);
// GPT-2's initial scale (std 0.02) leaves each block a tiny change to the residual stream, so
// the tied head just echoes the last token. Larger block weights make the output depend on
// the whole context, which is what this test must see through the paged K/V.
const weights = syntheticWeights(config, 5);
for (const layer of weights.layers) {
  for (const w of [layer.attnW, layer.attnProjW, layer.fcW, layer.fcProjW]) for (let i = 0; i < w.length; i++) w[i] *= BLOCK_WEIGHT_SCALE;
}
writeSafetensorsWeights(join(dir, 'model.safetensors'), config, weights);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Eight prompts: two families sharing a 24-token prefix (prefix cache), lengths 26..47.
const prompts = Array.from({ length: 8 }, (_, i) => [
  ...Array.from({ length: 24 }, (_, j) => ((i % 2) * 50 + j * 7) % config.vocabSize),
  ...Array.from({ length: 2 + i * 3 }, (_, j) => (i * 17 + j * 5 + 1) % config.vocabSize),
]);
const maxNewTokens = 10;

describe('engine on the cpu backend', () => {
  it('gives each request the same greedy tokens batched (chunked, prefix-cached, preempted) as alone', async () => {
    const alone: number[][] = [];
    const solo = await createEngine({ weightsDir: dir, threads: 1, numBlocks: 64, blockSize: 4, prefixCaching: false, scheduler: { chunkSize: 0 } });
    try {
      for (const promptIds of prompts) alone.push((await solo.submit({ promptIds, maxNewTokens }).done).outputIds);
    } finally {
      await solo.close();
    }

    // 20 blocks of 4 tokens cannot hold eight 36..57-token sequences: preemption is forced.
    const engine = await createEngine({
      weightsDir: dir,
      threads: 2,
      numBlocks: 20,
      blockSize: 4,
      scheduler: { maxBatchedTokens: 40, chunkSize: 12, maxNumSeqs: 8, prefillMaxBatch: 3 },
    });
    try {
      const results = await Promise.all(prompts.map((promptIds) => engine.submit({ promptIds, maxNewTokens }).done));
      // The outputs vary (a stuck model would make this comparison toothless).
      expect(new Set(alone.flat()).size).toBeGreaterThan(8);
      results.forEach((r, i) => {
        expect(r.timeline.error).toBeNull();
        expect(timelineInOrder(r.timeline)).toBe(true);
        expect(r.outputIds, `request ${i}`).toEqual(alone[i]);
      });
      const stats = await engine.stats();
      expect(stats.scheduler.preemptions).toBeGreaterThan(0);
      expect(stats.kv.prefixHitTokens).toBeGreaterThan(0);
      expect(stats.kv.usedBlocks).toBe(0);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('reports a missing or truncated weights folder as an error at creation', async () => {
    await expect(createEngine({ weightsDir: join(dir, 'missing') })).rejects.toThrow(/config\.json: not found/);
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    copyFileSync(join(dir, 'config.json'), join(broken, 'config.json'));
    writeFileSync(join(broken, 'model.safetensors'), readFileSync(join(dir, 'model.safetensors')).subarray(0, 1000));
    await expect(createEngine({ weightsDir: broken })).rejects.toThrow(/model\.safetensors/);
  });
});
