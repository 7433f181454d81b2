// The weights of a GPT-2 model as plain Float32Arrays, in Hugging Face's layout: the linear
// layers are Conv1D, stored [in, out]. Backends repack them however their kernels like.

import type { ModelConfig } from './model-config.ts';

export interface LayerWeights {
  ln1Gamma: Float32Array; // [C]
  ln1Beta: Float32Array; // [C]
  attnW: Float32Array; // [C, 3C]  (q | k | v)
  attnB: Float32Array; // [3C]
  attnProjW: Float32Array; // [C, C]
  attnProjB: Float32Array; // [C]
  ln2Gamma: Float32Array; // [C]
  ln2Beta: Float32Array; // [C]
  fcW: Float32Array; // [C, 4C]
  fcB: Float32Array; // [4C]
  fcProjW: Float32Array; // [4C, C]
  fcProjB: Float32Array; // [C]
}

export interface Weights {
  wte: Float32Array; // [vocab, C], also the LM head
  wpe: Float32Array; // [nCtx, C]
  layers: LayerWeights[];
  lnfGamma: Float32Array; // [C]
  lnfBeta: Float32Array; // [C]
}

/** Every tensor of a model with its shape, in a fixed order (the loaders and tests walk this). */
export function weightShapes(config: ModelConfig): { name: string; shape: number[] }[] {
  const c = config.nEmbd;
  const list = [
    { name: 'wte', shape: [config.vocabSize, c] },
    { name: 'wpe', shape: [config.nCtx, c] },
  ];
  for (let l = 0; l < config.nLayer; l++) {
    list.push(
      { name: `layers.${l}.ln1Gamma`, shape: [c] },
      { name: `layers.${l}.ln1Beta`, shape: [c] },
      { name: `layers.${l}.attnW`, shape: [c, 3 * c] },
      { name: `layers.${l}.attnB`, shape: [3 * c] },
      { name: `layers.${l}.attnProjW`, shape: [c, c] },
      { name: `layers.${l}.attnProjB`, shape: [c] },
      { name: `layers.${l}.ln2Gamma`, shape: [c] },
      { name: `layers.${l}.ln2Beta`, shape: [c] },
      { name: `layers.${l}.fcW`, shape: [c, 4 * c] },
      { name: `layers.${l}.fcB`, shape: [4 * c] },
      { name: `layers.${l}.fcProjW`, shape: [4 * c, c] },
      { name: `layers.${l}.fcProjB`, shape: [c] },
    );
  }
  list.push({ name: 'lnfGamma', shape: [c] }, { name: 'lnfBeta', shape: [c] });
  return list;
}

/** Builds a Weights record from a lookup by the names of weightShapes. */
export function assembleWeights(config: ModelConfig, get: (name: string) => Float32Array): Weights {
  const wte = get('wte');
  const wpe = get('wpe');
  const layers: LayerWeights[] = [];
  for (let l = 0; l < config.nLayer; l++) {
    const p = `layers.${l}.`;
    layers.push({
      ln1Gamma: get(p + 'ln1Gamma'),
      ln1Beta: get(p + 'ln1Beta'),
      attnW: get(p + 'attnW'),
      attnB: get(p + 'attnB'),
      attnProjW: get(p + 'attnProjW'),
      attnProjB: get(p + 'attnProjB'),
      ln2Gamma: get(p + 'ln2Gamma'),
      ln2Beta: get(p + 'ln2Beta'),
      fcW: get(p + 'fcW'),
      fcB: get(p + 'fcB'),
      fcProjW: get(p + 'fcProjW'),
      fcProjB: get(p + 'fcProjB'),
    });
  }
  return { wte, wpe, layers, lnfGamma: get('lnfGamma'), lnfBeta: get('lnfBeta') };
}

export function lookupWeight(weights: Weights, name: string): Float32Array {
  const parts = name.split('.');
  if (parts[0] === 'layers') {
    const layer = weights.layers[Number(parts[1])];
    return layer[parts[2] as keyof LayerWeights];
  }
  return weights[name as 'wte' | 'wpe' | 'lnfGamma' | 'lnfBeta'];
}

/**
 * Seeded synthetic weights: the same seed gives the same bits. Spread like GPT-2's init
 * (std 0.02, positions 0.01, output projections shrunk by sqrt(2 * nLayer), LayerNorm 1/0,
 * biases 0) so activations stay in a sane range; values are uniform with that std, which is
 * enough since timing does not depend on them. Each tensor has its own stream, seeded from
 * (seed, tensor name), so a tensor does not change when another one is added.
 */
export function syntheticWeights(config: ModelConfig, seed = 0): Weights {
  const projStd = 0.02 / Math.sqrt(2 * config.nLayer);
  return assembleWeights(config, (name) => {
    const size = weightShapes(config).find((w) => w.name === name)!.shape.reduce((a, b) => a * b, 1);
    const out = new Float32Array(size);
    const kind = name.split('.').at(-1)!;
    if (kind.endsWith('Gamma')) return out.fill(1);
    if (kind.endsWith('Beta') || kind.endsWith('B')) return out;
    const std = kind === 'wpe' ? 0.01 : kind === 'attnProjW' || kind === 'fcProjW' ? projStd : 0.02;
    fillUniform(out, std * Math.sqrt(3), seedFor(seed, name));
    return out;
  });
}

/** FNV-1a over the name, mixed with the seed. */
function seedFor(seed: number, name: string): number {
  let h = (0x811c9dc5 ^ Math.imul(seed | 0, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < name.length; i++) {
    h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  }
  return h;
}

/** Fills with uniform values in [-halfWidth, halfWidth) from xoshiro128** seeded by splitmix32. */
function fillUniform(out: Float32Array, halfWidth: number, seed: number): void {
  const state = new Uint32Array(4);
  let s = seed >>> 0;
  for (let i = 0; i < 4; i++) {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    state[i] = (z ^ (z >>> 16)) >>> 0;
  }
  let a = state[0], b = state[1], c = state[2], d = state[3];
  const scale = (2 * halfWidth) / 4294967296;
  for (let i = 0; i < out.length; i++) {
    const r = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    out[i] = r * scale - halfWidth;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
