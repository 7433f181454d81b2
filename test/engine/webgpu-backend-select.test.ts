// The backend factory behind --backend, the profiler, and the error paths of the webgpu backend.

import { describe, expect, it } from 'vitest';
import { parseBackendKind } from '../../src/engine/backend/backend-kind.ts';
import { createBackend, profileOf } from '../../src/engine/backend/create-backend.ts';
import { findAdapter, isSoftwareAdapter, openGpu } from '../../src/engine/backend/webgpu/device.ts';
import { compileKernel } from '../../src/engine/backend/webgpu/pipelines.ts';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';
import { buildBatch } from './cpu-batch-helpers.ts';
import { noAdapter } from './webgpu-adapter.ts';

// The engine test's shapes, so lavapipe compiles (and caches) one set of pipelines for all files.
const config: ModelConfig = { name: 'tiny', vocabSize: 211, nCtx: 96, nEmbd: 32, nLayer: 2, nHead: 4, layerNormEps: 1e-5 };
const weights = syntheticWeights(config, 7);
const kv = { numBlocks: 8, blockSize: 4 };
const SLOW = 600_000;

describe('createBackend', () => {
  it('parses the --backend values and refuses others', () => {
    expect(parseBackendKind('auto')).toBe('auto');
    expect(() => parseBackendKind('cuda')).toThrow(/unknown backend "cuda"; choose one of cpu, webgpu, auto/);
  });

  it('cpu is the cpu backend', async () => {
    const { backend, description } = await createBackend('cpu', { config, weights, kv, threads: 1 });
    expect(backend.name).toBe('cpu');
    expect(description).toMatch(/^cpu, 1 thread/);
    expect(profileOf(backend)).toBeUndefined();
    await backend.close();
  });

  it('auto takes a hardware adapter, else the cpu backend, saying why', async () => {
    const hardware = await findAdapter('hardware');
    const { backend, description } = await createBackend('auto', { config, weights, kv, threads: 1 });
    try {
      if (hardware) {
        expect(backend.name).toBe('webgpu');
        expect(description).toMatch(/auto: hardware adapter/);
      } else {
        expect(backend.name).toBe('cpu');
        expect(description).toMatch(/auto: (only a software adapter .*pass --backend webgpu|no WebGPU adapter)/);
      }
    } finally {
      await backend.close();
    }
  }, SLOW);
});

describe.skipIf(noAdapter)('webgpu backend by name, profile and errors', () => {
  it('webgpu runs on whatever adapter there is, lavapipe included, and profiles every kernel', async () => {
    const { backend, description } = await createBackend('webgpu', { config, weights, kv, profile: true });
    try {
      expect(backend.name).toBe('webgpu');
      expect(description).toContain(backend.device);
      await backend.step(buildBatch([{ tokens: [1, 2, 3, 4, 5], start: 0, blocks: [0, 1] }], kv.blockSize));
      const profile = profileOf(backend)!;
      expect(profile.steps).toBe(1);
      const kernels = profile.kernels.map((k) => k.kernel);
      for (const name of ['embed', 'attention', 'lm head', 'sample']) expect(kernels).toContain(name);
      // Each block's two LayerNorms run as kernels of their own, or (split-K matmuls, on a GPU) inside the matmuls after them.
      const calls = (name: string) => profile.kernels.find((k) => k.kernel === name)?.calls ?? 0;
      expect(calls('layernorm') + calls('layernorm + matmul qkv + kv write') + calls('layernorm + matmul fc + gelu')).toBe(2 * config.nLayer);
      expect(calls('matmul qkv + kv write') + calls('layernorm + matmul qkv + kv write')).toBe(config.nLayer);
      expect(profile.totalMs).toBeGreaterThan(0);
    } finally {
      await backend.close();
    }
    await expect(backend.step(buildBatch([{ tokens: [1], start: 0, blocks: [0] }], kv.blockSize))).rejects.toThrow(/after close/);
  }, SLOW);

  it('a kernel that does not compile is an error quoting the compiler, not a hang', async () => {
    const { device } = await openGpu('any');
    try {
      const layout = device.createBindGroupLayout({ entries: [] });
      await expect(compileKernel(device, 'broken', '@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }', layout)).rejects.toThrow(/kernel "broken" failed to compile:\n {2}line 1:/);
    } finally {
      device.destroy();
    }
  }, SLOW);

  it('tells a software adapter from a GPU', async () => {
    const adapter = (await findAdapter('any'))!;
    const text = `${adapter.info.vendor} ${adapter.info.device} ${adapter.info.description}`;
    expect(isSoftwareAdapter(adapter)).toBe(/llvmpipe|lavapipe|swiftshader/i.test(text) || adapter.info.isFallbackAdapter === true);
  });
});
