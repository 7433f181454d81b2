// The engine issue's batch-invariance scenario on the webgpu backend: eight requests batched
// (chunked prefill, prefix cache, preemption) on webgpu give the greedy tokens the cpu backend
// gives each of them run alone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.ts';
import type { ModelConfig } from '../../src/engine/model/config.ts';
import { writeSafetensorsWeights } from '../../src/engine/model/safetensors.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';
import { noAdapter } from './webgpu-adapter.ts';

const config: ModelConfig = { name: 'tiny', vocabSize: 211, nCtx: 96, nEmbd: 32, nLayer: 2, nHead: 4, layerNormEps: 1e-5 };
const dir = mkdtempSync(join(tmpdir(), 'kb-engine-webgpu-'));
writeFileSync(
  join(dir, 'config.json'),
  JSON.stringify({ model_type: 'gpt2', vocab_size: config.vocabSize, n_positions: config.nCtx, n_embd: config.nEmbd, n_layer: config.nLayer, n_head: config.nHead }),
);
// Larger block weights than GPT-2's init, so the output depends on the whole context.
const weights = syntheticWeights(config, 5);
for (const layer of weights.layers) {
  for (const w of [layer.attnW, layer.attnProjW, layer.fcW, layer.fcProjW]) for (let i = 0; i < w.length; i++) w[i] *= 30;
}
writeSafetensorsWeights(join(dir, 'model.safetensors'), config, weights);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const prompts = Array.from({ length: 8 }, (_, i) => [
  ...Array.from({ length: 24 }, (_, j) => ((i % 2) * 50 + j * 7) % config.vocabSize),
  ...Array.from({ length: 2 + i * 3 }, (_, j) => (i * 17 + j * 5 + 1) % config.vocabSize),
]);
const maxNewTokens = 10;

describe.skipIf(noAdapter)('engine on the webgpu backend', () => {
  it('gives each request, batched on webgpu, the greedy tokens cpu gives it alone', async () => {
    const alone: number[][] = [];
    const solo = await createEngine({ weightsDir: dir, threads: 1, numBlocks: 64, blockSize: 4, prefixCaching: false, scheduler: { chunkSize: 0 } });
    try {
      for (const promptIds of prompts) alone.push((await solo.submit({ promptIds, maxNewTokens }).done).outputIds);
    } finally {
      await solo.close();
    }
    const engine = await createEngine({
      weightsDir: dir,
      backend: 'webgpu',
      numBlocks: 20,
      blockSize: 4,
      scheduler: { maxBatchedTokens: 40, chunkSize: 12, maxNumSeqs: 8, prefillMaxBatch: 3 },
    });
    try {
      expect(engine.info.backend).toBe('webgpu');
      const results = await Promise.all(prompts.map((promptIds) => engine.submit({ promptIds, maxNewTokens }).done));
      expect(new Set(alone.flat()).size).toBeGreaterThan(8);
      results.forEach((r, i) => {
        expect(r.timeline.error).toBeNull();
        expect(r.outputIds, `request ${i}`).toEqual(alone[i]);
      });
      const stats = await engine.stats();
      expect(stats.scheduler.preemptions).toBeGreaterThan(0);
      expect(stats.kv.prefixHitTokens).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
  }, 600_000);
});
