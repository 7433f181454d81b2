import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { lookupWeight, syntheticWeights, weightShapes } from '../../src/engine/model/weights.ts';

const config: ModelConfig = { name: 't', vocabSize: 50, nCtx: 16, nEmbd: 8, nLayer: 2, nHead: 2, layerNormEps: 1e-5 };

function bits(seed: number): Uint8Array[] {
  const w = syntheticWeights(config, seed);
  return weightShapes(config).map(({ name }) => new Uint8Array(lookupWeight(w, name).buffer.slice(0)));
}

describe('synthetic weights', () => {
  it('same seed, same bits; another seed, other bits', () => {
    expect(bits(42)).toEqual(bits(42));
    expect(bits(42)).not.toEqual(bits(43));
  });

  it('has every tensor at its shape, spread like GPT-2 init', () => {
    const w = syntheticWeights({ ...config, nEmbd: 64 }, 1);
    for (const { name, shape } of weightShapes({ ...config, nEmbd: 64 })) {
      expect(lookupWeight(w, name).length, name).toBe(shape.reduce((a, b) => a * b, 1));
    }
    const std = Math.sqrt(w.wte.reduce((s, v) => s + v * v, 0) / w.wte.length);
    expect(std).toBeGreaterThan(0.018);
    expect(std).toBeLessThan(0.022);
    expect(w.layers[0].ln1Gamma.every((v) => v === 1)).toBe(true);
    expect(w.layers[0].attnB.every((v) => v === 0)).toBe(true);
  });
});
