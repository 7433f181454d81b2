// The real model under the engine: batching, chunked prefill, prefix caching and preemption
// must not change a single greedy token.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/index.ts';
import { timelineInOrder } from '../../src/engine/metrics/timeline.ts';
import { crowdedEngine, greedyAlone, maxNewTokens, prompts, writeContextSensitiveModel } from './batch-invariance-fixture.ts';

const dir = writeContextSensitiveModel('kb-engine-cpu-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('engine on the cpu backend', () => {
  it('gives each request the same greedy tokens batched (chunked, prefix-cached, preempted) as alone', async () => {
    const alone = await greedyAlone(dir);
    const engine = await createEngine({ weightsDir: dir, threads: 2, ...crowdedEngine });
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

  it('warms itself up before it is ready, unseen: no step in its statistics, the same tokens as an engine that did not', async () => {
    // profile (kernel timings) skips the warm-up, so that the profile counts only the requests' kernels.
    const cold = await createEngine({ weightsDir: dir, threads: 2, profile: true, traceSteps: true });
    const warm = await createEngine({ weightsDir: dir, threads: 2, traceSteps: true });
    try {
      const stats = await warm.stats();
      expect(stats.scheduler.steps).toBe(0);
      expect(stats.steps).toEqual([]);
      expect(stats.kv.usedBlocks).toBe(0);
      for (const promptIds of prompts) {
        const [a, b] = await Promise.all([cold.submit({ promptIds, maxNewTokens }).done, warm.submit({ promptIds, maxNewTokens }).done]);
        expect(b.outputIds).toEqual(a.outputIds);
      }
    } finally {
      await Promise.all([cold.close(), warm.close()]);
    }
  }, 60_000);

  it('samples a top_p below float32\'s range and a top_k above int32\'s as they mean, and stays up', async () => {
    // The step's batch holds top_p as float32 and top_k as int32: 1e-300 rounded to 0 and
    // 3e9 wrapped negative, which failed the batch and with it the engine (kb serve, every client).
    const engine = await createEngine({ weightsDir: dir, threads: 1 });
    try {
      const promptIds = prompts[0];
      const run = async (sampling: { temperature: number; topK?: number; topP?: number; seed?: number }) => {
        const r = await engine.submit({ promptIds, maxNewTokens, ...sampling }).done;
        expect(r.timeline.error).toBeNull();
        return r.outputIds;
      };
      const greedy = await run({ temperature: 0 });
      // A nucleus that small is the most likely token alone: greedy.
      expect(await run({ temperature: 1, topP: 1e-300, seed: 3 })).toEqual(greedy);
      // Top-k larger than the vocabulary is no top-k at all.
      expect(await run({ temperature: 1, topK: 3_000_000_000, seed: 3 })).toEqual(await run({ temperature: 1, topK: 0, seed: 3 }));
      expect(await run({ temperature: 1, topK: 4_294_967_297, seed: 3 })).toEqual(await run({ temperature: 1, topK: 0, seed: 3 }));
      // A temperature beyond float32 is as flat as the largest float32 one.
      expect(await run({ temperature: 1e39, seed: 3 })).toEqual(await run({ temperature: 3e38, seed: 3 }));
      expect(await run({ temperature: 0 })).toEqual(greedy);
    } finally {
      await engine.close();
    }
  });

  it('reports a missing or truncated weights folder as an error at creation', async () => {
    await expect(createEngine({ weightsDir: join(dir, 'missing') })).rejects.toThrow(/missing: no such folder/);
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    await expect(createEngine({ weightsDir: broken })).rejects.toThrow(/config\.json: not found/);
    copyFileSync(join(dir, 'config.json'), join(broken, 'config.json'));
    writeFileSync(join(broken, 'model.safetensors'), readFileSync(join(dir, 'model.safetensors')).subarray(0, 1000));
    await expect(createEngine({ weightsDir: broken })).rejects.toThrow(/model\.safetensors/);
  });
});
