import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { loadHfModelDir, loadModel } from '../../src/engine/model/load-model.ts';
import { hfTensorName, readSafetensorsWeights, writeSafetensors, writeSafetensorsWeights } from '../../src/engine/model/safetensors.ts';
import { lookupWeight, syntheticWeights, weightShapes } from '../../src/engine/model/weights.ts';

const config: ModelConfig = { name: 't', vocabSize: 50, nCtx: 16, nEmbd: 8, nLayer: 2, nHead: 2, layerNormEps: 1e-5 };
const weights = syntheticWeights(config, 3);
const dir = mkdtempSync(join(tmpdir(), 'kb-safetensors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function maxRelativeDiff(name: string, loaded: ReturnType<typeof readSafetensorsWeights>): number {
  const a = lookupWeight(weights, name);
  const b = lookupWeight(loaded, name);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(Math.abs(a[i]), 1e-4));
  return worst;
}

describe('safetensors', () => {
  it('round-trips F32 weights bit for bit under the Hugging Face names', () => {
    const path = join(dir, 'f32.safetensors');
    writeSafetensorsWeights(path, config, weights, 'F32');
    const loaded = readSafetensorsWeights(path, config);
    for (const { name } of weightShapes(config)) expect(Array.from(lookupWeight(loaded, name)), name).toEqual(Array.from(lookupWeight(weights, name)));
    expect(hfTensorName('layers.1.attnW')).toBe('h.1.attn.c_attn.weight');
  });

  it('converts F16 and BF16 to float32 within their precision', () => {
    for (const [dtype, tolerance] of [['F16', 1e-3], ['BF16', 8e-3]] as const) {
      const path = join(dir, `${dtype}.safetensors`);
      writeSafetensorsWeights(path, config, weights, dtype);
      const loaded = readSafetensorsWeights(path, config);
      for (const { name } of weightShapes(config)) expect(maxRelativeDiff(name, loaded), `${dtype} ${name}`).toBeLessThan(tolerance);
    }
  });

  it('decodes known half and bfloat16 values exactly', () => {
    const values = Float32Array.from([1, -2, 0.5, 65504, 2 ** -24, 0, 3.140625]);
    const tiny: ModelConfig = { ...config, vocabSize: 7, nEmbd: 1, nHead: 1, nLayer: 0, nCtx: 1 };
    for (const dtype of ['F16', 'BF16'] as const) {
      const path = join(dir, `known-${dtype}.safetensors`);
      const w = syntheticWeights(tiny, 0);
      w.wte.set(dtype === 'F16' ? values : values.map((v) => (v === 65504 || v === 2 ** -24 ? 1 : v)));
      writeSafetensorsWeights(path, tiny, w, dtype);
      expect(Array.from(readSafetensorsWeights(path, tiny).wte)).toEqual(Array.from(w.wte));
    }
  });

  it('accepts the transformer. prefix and ignores extra tensors', () => {
    const path = join(dir, 'prefixed.safetensors');
    writeSafetensors(path, [
      ...weightShapes(config).map(({ name, shape }) => ({ name: `transformer.${hfTensorName(name)}`, shape, data: lookupWeight(weights, name), dtype: 'F32' as const })),
      { name: 'lm_head.weight', shape: [config.vocabSize, config.nEmbd], data: weights.wte, dtype: 'F32' },
    ]);
    expect(Array.from(readSafetensorsWeights(path, config).wpe)).toEqual(Array.from(weights.wpe));
  });

  it('names the tensor when the file is truncated', () => {
    const path = join(dir, 'truncated.safetensors');
    writeSafetensorsWeights(path, config, weights, 'F32');
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 10));
    expect(() => readSafetensorsWeights(path, config)).toThrow(/truncated: tensor "ln_f\.bias"/);
    writeFileSync(path, bytes.subarray(0, 5));
    expect(() => readSafetensorsWeights(path, config)).toThrow(/truncated safetensors file/);
  });

  it('names the tensor with the wrong shape or a missing one', () => {
    const path = join(dir, 'mis-shaped.safetensors');
    writeSafetensorsWeights(path, config, weights, 'F32');
    expect(() => readSafetensorsWeights(path, { ...config, nEmbd: 4 })).toThrow(/tensor "wte\.weight" has shape \[50, 8\], expected \[50, 4\]/);
    expect(() => readSafetensorsWeights(path, { ...config, nLayer: 3 })).toThrow(/holds 2 layers \(h\.0 to h\.1\); the config says n_layer 3/);
  });

  it('loads a Hugging Face folder (config.json + model.safetensors)', () => {
    const modelDir = join(dir, 'model');
    rmSync(modelDir, { recursive: true, force: true });
    mkdirSync(modelDir);
    writeFileSync(join(modelDir, 'config.json'), JSON.stringify({ model_type: 'gpt2', vocab_size: 50, n_positions: 16, n_embd: 8, n_layer: 2, n_head: 2 }));
    expect(() => loadHfModelDir(modelDir)).toThrow(/model\.safetensors: not found/);
    writeSafetensorsWeights(join(modelDir, 'model.safetensors'), config, weights, 'BF16');
    const loaded = loadModel({ weightsDir: modelDir });
    expect(loaded.config.nLayer).toBe(2);
    expect(loaded.source).toContain('model.safetensors');
    expect(() => loadModel({ model: 'nope' })).toThrow(/unknown model/);
  });
});
