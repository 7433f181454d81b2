// kb generate --backend cpu|webgpu|auto|sim and --profile, through the real CLI. The webgpu
// cases run on lavapipe here and in CI (where a missing adapter fails the run, see
// test/engine/webgpu-adapter.ts).
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findAdapter } from '../../src/engine/backend/webgpu/device.ts';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { writeSafetensorsWeights } from '../../src/engine/model/safetensors.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';
import { noAdapter } from '../engine/webgpu-adapter.ts';
import { runKb, tempDir } from '../helpers/kb-cli.ts';

const SLOW = 600_000;
const run = (args: string[], env?: Record<string, string>) => runKb(['generate', ...args], { timeoutMs: SLOW, env });
const json = (args: string[]) => {
  const r = run([...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
// Vulkan's loader finds no driver through a missing ICD file: Dawn then has no adapter (Linux).
const NO_VULKAN = { VK_ICD_FILENAMES: '/nonexistent/kb-no-icd.json' };

// A small model whose greedy tokens depend on the whole context (GPT-2's init scale makes the
// tied head echo the last token), so equal outputs across backends mean something.
const config: ModelConfig = { name: 'small', vocabSize: 211, nCtx: 96, nEmbd: 32, nLayer: 2, nHead: 4, layerNormEps: 1e-5 };
const dir = tempDir('kb-weights-');
writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'gpt2', vocab_size: 211, n_positions: 96, n_embd: 32, n_layer: 2, n_head: 4 }));
const weights = syntheticWeights(config, 5);
for (const layer of weights.layers) {
  for (const w of [layer.attnW, layer.attnProjW, layer.fcW, layer.fcProjW]) for (let i = 0; i < w.length; i++) w[i] *= 30;
}
writeSafetensorsWeights(join(dir, 'model.safetensors'), config, weights);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kb generate --backend', () => {
  it('refuses an unknown backend, naming the valid ones', () => {
    const r = run(['--backend', 'cuda', '--prompt-ids', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('kb: --backend: unknown backend "cuda"; choose one of cpu, webgpu, auto, sim\n');
  });

  it('cpu prints its threads, and --profile says there is no kernel table on cpu', () => {
    const r = run(['--backend', 'cpu', '--threads', '1', '--prompt-ids', '1,2,3', '--max-new-tokens', '2', '--profile']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backend: cpu, 1 thread/m);
    expect(r.stdout).toMatch(/^profile: none; per-kernel timing needs the webgpu backend \(this run used cpu\)$/m);
    expect(json(['--backend', 'cpu', '--prompt-ids', '1', '--max-new-tokens', '1', '--profile']).profile).toBeNull();
  });

  it('auto picks a hardware adapter, else cpu, and says why', async () => {
    const hardware = await findAdapter('hardware');
    const result = json(['--backend', 'auto', '--model', 'gpt2-tiny', '--prompt-ids', '1,2,3', '--max-new-tokens', '4']);
    if (hardware) {
      expect(result.backend).toBe('webgpu');
      expect(result.description).toMatch(/auto: hardware adapter/);
    } else {
      expect(result.backend).toBe('cpu');
      expect(result.description).toMatch(/^cpu, .*\(auto: (only a software adapter \(.+\); pass --backend webgpu to use it|no WebGPU adapter)\)$/);
    }
    expect(result.outputIds).toHaveLength(4);
  }, SLOW);

  describe.runIf(process.platform === 'linux')('without any adapter', () => {
    it('webgpu ends with the message that says how to get one, exit 1', () => {
      const r = run(['--backend', 'webgpu', '--prompt-ids', '1,2,3', '--max-new-tokens', '2'], NO_VULKAN);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      // One line, kb's: Dawn's own warning (vkCreateInstance, with C++ source locations) came first.
      expect(r.stderr).toMatch(/^kb: WebGPU found no adapter\. VK_ICD_FILENAMES=\/nonexistent\/kb-no-icd\.json names no Vulkan driver manifest [^\n]*(unset it|mesa-vulkan-drivers 23 or newer)[^\n]*\.\n$/);
    });

    it('auto falls back to cpu and says so', () => {
      // A wide $COLUMNS: the line is read whole, as the report prints it on a wide terminal.
      const r = run(['--backend', 'auto', '--prompt-ids', '1,2,3', '--max-new-tokens', '2'], { ...NO_VULKAN, COLUMNS: '400' });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^backend: cpu, .*\(auto: no WebGPU adapter\)$/m);
      expect(r.stderr).toBe(''); // quietly: Dawn is not started to find out
    });
  });
});

describe.skipIf(noAdapter)('kb generate --backend webgpu', () => {
  it('gives the token ids --backend cpu gives (gpt2-tiny) and names the adapter', () => {
    const args = ['--model', 'gpt2-tiny', '--prompt-ids', '1,2,3', '--max-new-tokens', '4'];
    const gpu = json(['--backend', 'webgpu', ...args]);
    const cpu = json(['--backend', 'cpu', ...args]);
    expect(gpu.backend).toBe('webgpu');
    expect(gpu.description).toMatch(/^webgpu on \S/);
    expect(gpu.description).toContain(gpu.device);
    expect(gpu.outputIds).toHaveLength(4);
    expect(gpu.outputIds).toEqual(cpu.outputIds);
  }, SLOW);

  it('gives the token ids cpu gives on a model whose output depends on the whole context', () => {
    const args = ['--weights', dir, '--prompt-ids', '5,17,42,99,3,150,7,64', '--max-new-tokens', '8'];
    const gpu = json(['--backend', 'webgpu', ...args]);
    const cpu = json(['--backend', 'cpu', ...args]);
    expect(new Set(cpu.outputIds).size).toBeGreaterThan(1);
    expect(gpu.outputIds).toEqual(cpu.outputIds);
  }, SLOW);

  it('--profile prints the per-kernel table', () => {
    const r = run(['--backend', 'webgpu', '--model', 'gpt2-tiny', '--prompt-ids', '1,2,3', '--max-new-tokens', '3', '--profile']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backend: webgpu on /m);
    expect(r.stdout).toMatch(/^profile: [\d.]+ ms in kernels over 3 steps \((GPU timestamps|CPU-side timing.*)\)$/m);
    expect(r.stdout).toMatch(/^ {2}kernel +calls +total ms +mean µs +share$/m);
    // On a GPU the block's LayerNorms run inside the matmuls after them: only the final one is a kernel of its own.
    for (const kernel of ['embed', '(?:final )?layernorm', '(?:layernorm \\+ )?matmul qkv \\+ kv write', 'attention', 'lm head', 'sample']) {
      expect(r.stdout).toMatch(new RegExp(`^ {2}${kernel} +\\d+ +[\\d.]+ +[\\d.]+ +[\\d.]+%$`, 'm'));
    }
    const profile = json(['--backend', 'webgpu', '--prompt-ids', '1,2', '--max-new-tokens', '2', '--profile']).profile;
    expect(profile.steps).toBe(2);
    expect(profile.kernels.map((k: { kernel: string }) => k.kernel)).toContain('lm head');
  }, SLOW);
});
