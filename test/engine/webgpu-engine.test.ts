// The engine issue's batch-invariance scenario on the webgpu backend: eight requests batched
// (chunked prefill, prefix cache, preemption) on webgpu give the greedy tokens the cpu backend
// gives each of them run alone.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/index.ts';
import { crowdedEngine, greedyAlone, maxNewTokens, prompts, writeContextSensitiveModel } from './batch-invariance-fixture.ts';
import { noAdapter } from './webgpu-adapter.ts';

const dir = writeContextSensitiveModel('kb-engine-webgpu-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(noAdapter)('engine on the webgpu backend', () => {
  it('gives each request, batched on webgpu, the greedy tokens cpu gives it alone', async () => {
    const alone = await greedyAlone(dir);
    const engine = await createEngine({ weightsDir: dir, backend: 'webgpu', ...crowdedEngine });
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
