// How the engine picks and reports its backend: `auto`, the description every report prints,
// and the per-kernel profile of the webgpu backend.
import { describe, expect, it } from 'vitest';
import { findAdapter } from '../../src/engine/backend/webgpu/device.ts';
import { createEngine } from '../../src/engine/index.ts';
import { resolveEngineOptions } from '../../src/engine/engine-options.ts';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { noAdapter } from './webgpu-adapter.ts';

// The shapes the other webgpu tests use, so lavapipe's compiled pipelines are shared.
const model: ModelConfig = { name: 'tiny', vocabSize: 211, nCtx: 96, nEmbd: 32, nLayer: 2, nHead: 4, layerNormEps: 1e-5 };
const SLOW = 600_000;

describe('engine backend options', () => {
  it('accepts auto and profile, and refuses unknown backends and non-boolean profile', () => {
    expect(resolveEngineOptions({ backend: 'auto', profile: true })).toMatchObject({ backend: 'auto', profile: true });
    expect(resolveEngineOptions({}).profile).toBe(false);
    expect(() => resolveEngineOptions({ backend: 'cuda' as never })).toThrow(/backend must be one of cpu, webgpu, auto, sim \(got cuda\)/);
    expect(() => resolveEngineOptions({ profile: 'yes' as never })).toThrow(/profile must be true or false/);
  });

  it('cpu: info names the backend and its threads; no profile', async () => {
    const engine = await createEngine({ model, threads: 1, profile: true });
    try {
      expect(engine.info.backend).toBe('cpu');
      expect(engine.info.description).toMatch(/^cpu, 1 thread/);
      expect(engine.info.profiling).toBe(false);
      expect(await engine.profile()).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('sim: the client fills the description from the modelled device', async () => {
    const engine = await createEngine({ model, backend: 'sim' });
    try {
      expect(engine.info.description).toMatch(new RegExp(`^sim, ${engine.info.device}; KV capacity: .* -> ${engine.info.numBlocks} blocks x ${engine.info.blockSize} tokens( \\(capped: \\d+ sequences x \\d+ tokens\\))?$`));
      expect(await engine.profile()).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('auto: a hardware adapter, else cpu, and the description says why', async () => {
    const hardware = await findAdapter('hardware');
    const engine = await createEngine({ model, backend: 'auto', threads: 1 });
    try {
      const out = await engine.submit({ promptIds: [1, 2, 3], maxNewTokens: 2 }).done;
      expect(out.outputIds).toHaveLength(2);
      if (hardware) {
        expect(engine.info.backend).toBe('webgpu');
        expect(engine.info.description).toMatch(/auto: hardware adapter/);
      } else {
        expect(engine.info.backend).toBe('cpu');
        expect(engine.info.description).toMatch(/\(auto: (only a software adapter .*pass --backend webgpu to use it|no WebGPU adapter)\)$/);
      }
    } finally {
      await engine.close();
    }
  }, SLOW);
});

describe.skipIf(noAdapter)('engine on webgpu with profile', () => {
  it('names the adapter and times every kernel of the steps run', async () => {
    const engine = await createEngine({ model, backend: 'webgpu', profile: true });
    try {
      expect(engine.info.backend).toBe('webgpu');
      expect(engine.info.description).toBe(`webgpu on ${engine.info.device}`);
      expect(engine.info.profiling).toBe(true);
      const out = await engine.submit({ promptIds: [5, 6, 7, 8], maxNewTokens: 3 }).done;
      expect(out.timeline.error).toBeNull();
      const profile = (await engine.profile())!;
      // Prefill samples the first token, two decode steps the rest.
      expect(profile.steps).toBe(3);
      expect(['gpu-timestamps', 'cpu-timing']).toContain(profile.source);
      const kernels = profile.kernels.map((k) => k.kernel);
      for (const name of ['embed', 'final layernorm', 'attention', 'lm head', 'sample']) expect(kernels).toContain(name);
      // A block's LayerNorms run alone, or inside the matmul after them where that one fuses
      // them (split-K kernels on a GPU: 'layernorm + matmul qkv + kv write').
      expect(kernels.filter((k) => k.startsWith('layernorm')).length).toBeGreaterThan(0);
      expect(profile.kernels.find((k) => k.kernel === 'lm head')!.calls).toBe(3);
    } finally {
      await engine.close();
    }
  }, SLOW);

  it('without profile, the webgpu engine reports none', async () => {
    const engine = await createEngine({ model, backend: 'webgpu' });
    try {
      expect(engine.info.profiling).toBe(false);
      await engine.submit({ promptIds: [1, 2], maxNewTokens: 1 }).done;
      expect(await engine.profile()).toBeUndefined();
    } finally {
      await engine.close();
    }
  }, SLOW);
});
