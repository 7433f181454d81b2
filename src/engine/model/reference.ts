// The plainest GPT-2 forward pass, in float64 over one whole sequence: no paging, no batching,
// no threads. Tests hold every backend against it.

import type { ModelConfig } from './model-config.ts';
import type { Weights } from './weights.ts';

/** Logits for every position, row-major [tokens.length, vocab]. */
export function referenceLogits(config: ModelConfig, weights: Weights, tokens: ArrayLike<number>): Float64Array {
  const { nEmbd: c, nHead, vocabSize } = config;
  const t = tokens.length;
  const hd = c / nHead;
  let x: Float64Array = new Float64Array(t * c);
  for (let i = 0; i < t; i++) {
    for (let j = 0; j < c; j++) x[i * c + j] = weights.wte[tokens[i] * c + j] + weights.wpe[i * c + j];
  }
  for (const layer of weights.layers) {
    const qkv = linear(layerNorm(x, t, c, layer.ln1Gamma, layer.ln1Beta, config.layerNormEps), t, c, 3 * c, layer.attnW, layer.attnB);
    const attn = new Float64Array(t * c);
    const scores = new Float64Array(t);
    for (let h = 0; h < nHead; h++) {
      for (let i = 0; i < t; i++) {
        let max = -Infinity;
        for (let j = 0; j <= i; j++) {
          let dot = 0;
          for (let d = 0; d < hd; d++) dot += qkv[i * 3 * c + h * hd + d] * qkv[j * 3 * c + c + h * hd + d];
          scores[j] = dot / Math.sqrt(hd);
          max = Math.max(max, scores[j]);
        }
        let sum = 0;
        for (let j = 0; j <= i; j++) sum += scores[j] = Math.exp(scores[j] - max);
        for (let j = 0; j <= i; j++) {
          for (let d = 0; d < hd; d++) attn[i * c + h * hd + d] += (scores[j] / sum) * qkv[j * 3 * c + 2 * c + h * hd + d];
        }
      }
    }
    x = add(x, linear(attn, t, c, c, layer.attnProjW, layer.attnProjB));
    const fc = linear(layerNorm(x, t, c, layer.ln2Gamma, layer.ln2Beta, config.layerNormEps), t, c, 4 * c, layer.fcW, layer.fcB);
    for (let i = 0; i < fc.length; i++) fc[i] = gelu(fc[i]);
    x = add(x, linear(fc, t, 4 * c, c, layer.fcProjW, layer.fcProjB));
  }
  const xf = layerNorm(x, t, c, weights.lnfGamma, weights.lnfBeta, config.layerNormEps);
  const logits = new Float64Array(t * vocabSize);
  for (let i = 0; i < t; i++) {
    for (let v = 0; v < vocabSize; v++) {
      let dot = 0;
      for (let j = 0; j < c; j++) dot += xf[i * c + j] * weights.wte[v * c + j];
      logits[i * vocabSize + v] = dot;
    }
  }
  return logits;
}

function layerNorm(x: Float64Array, t: number, c: number, gamma: Float32Array, beta: Float32Array, eps: number): Float64Array {
  const out = new Float64Array(t * c);
  for (let i = 0; i < t; i++) {
    let mean = 0;
    for (let j = 0; j < c; j++) mean += x[i * c + j];
    mean /= c;
    let variance = 0;
    for (let j = 0; j < c; j++) variance += (x[i * c + j] - mean) ** 2;
    const inv = 1 / Math.sqrt(variance / c + eps);
    for (let j = 0; j < c; j++) out[i * c + j] = (x[i * c + j] - mean) * inv * gamma[j] + beta[j];
  }
  return out;
}

/** x [t, k] times a Conv1D weight [k, n] plus bias. */
function linear(x: Float64Array, t: number, k: number, n: number, w: Float32Array, b: Float32Array): Float64Array {
  const out = new Float64Array(t * n);
  for (let i = 0; i < t; i++) {
    for (let j = 0; j < n; j++) {
      let dot = b[j];
      for (let m = 0; m < k; m++) dot += x[i * k + m] * w[m * n + j];
      out[i * n + j] = dot;
    }
  }
  return out;
}

function add(a: Float64Array, b: Float64Array): Float64Array {
  for (let i = 0; i < a.length; i++) a[i] += b[i];
  return a;
}

function gelu(x: number): number {
  return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
}
