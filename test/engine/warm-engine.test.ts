// The engine's warm-up: a batch of short requests decoded long enough for V8 to optimize the
// step loop and the kernels, but never longer than its time budget on a slow backend.
import { describe, expect, it } from 'vitest';
import type { Backend, ForwardBatch } from '../../src/engine/backend/backend.ts';
import { createSimBackend } from '../../src/engine/backend/sim/sim-backend.ts';
import { namedDevices } from '../../src/engine/backend/sim/gpus.ts';
import { EngineCore } from '../../src/engine/core/engine-core.ts';
import { resolveSchedulerOptions } from '../../src/engine/core/scheduler-options.ts';
import { warmEngine } from '../../src/engine/host/warm-engine.ts';
import { StepStats } from '../../src/engine/metrics/step-stats.ts';
import { VirtualClock } from '../../src/engine/engine-clock.ts';
import { NAMED_CONFIGS } from '../../src/engine/model/model-config.ts';

const config = NAMED_CONFIGS['gpt2-tiny'];

/** A backend that counts its steps, each taking `stepMs` of real time. */
function countingBackend(stepMs: number): { backend: Backend; steps: () => number; decodes: () => number } {
  const sim = createSimBackend({ config, kv: { numBlocks: 64, blockSize: 16 }, device: namedDevices['A100-40GB'], seed: 1 });
  let steps = 0;
  let decodes = 0;
  const backend: Backend = {
    ...sim,
    async step(batch: ForwardBatch) {
      steps++;
      if (batch.tokenIds.length === batch.contextLens.length) decodes++;
      if (stepMs > 0) await new Promise((resolve) => setTimeout(resolve, stepMs));
      return sim.step(batch);
    },
  };
  return { backend, steps: () => steps, decodes: () => decodes };
}

const scratchCore = () => {
  const clock = new VirtualClock();
  return new EngineCore({ config, scheduler: resolveSchedulerOptions({}), numBlocks: 64, blockSize: 16, prefixCaching: false, seed: 1 }, clock, new StepStats(clock));
};

describe('warmEngine', () => {
  it('prefills its requests and decodes them for dozens of steps on a fast backend', async () => {
    const { backend, steps, decodes } = countingBackend(0);
    await warmEngine(backend, scratchCore());
    expect(decodes()).toBeGreaterThanOrEqual(30);
    expect(steps() - decodes()).toBe(1);
  });

  it('stops at its time budget on a slow backend', async () => {
    const { backend, steps } = countingBackend(120);
    const start = performance.now();
    await warmEngine(backend, scratchCore());
    expect(steps()).toBeLessThanOrEqual(4);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
