// A roofline estimate of one forward step of GPT-2 over a ragged batch: the step is bound
// either by arithmetic or by memory traffic, whichever takes longer, plus a fixed overhead.
import type { ModelConfig } from '../../model/model-config.ts';
import type { ForwardBatch } from '../backend.ts';
import type { DeviceSpec } from './gpus.ts';
import { predictStepMs } from './cost-terms.ts';
import { stepShape } from './step-shape.ts';

export interface StepCost {
  flops: number;
  bytes: number;
  ms: number;
}

/** Weights read by every step: the transformer blocks (12 d^2 per layer) and the tied LM head. */
export function weightCount(config: ModelConfig): number {
  const d = config.nEmbd;
  return config.nLayer * 12 * d * d + config.vocabSize * d;
}

export function kvBytesPerTokenOn(config: ModelConfig, device: DeviceSpec): number {
  return 2 * config.nLayer * config.nEmbd * device.dtypeBytes;
}

export function stepCost(config: ModelConfig, device: DeviceSpec, batch: ForwardBatch): StepCost {
  const d = config.nEmbd;
  const layers = config.nLayer;
  const tokens = batch.tokenIds.length;
  const sampled = batch.sampleSeqs.length;
  // Each token attends over its causal context: QK^T and AV, 2 FLOPs per multiply-add.
  let attentionFlops = 0;
  for (let t = 0; t < tokens; t++) attentionFlops += 4 * d * (batch.positions[t] + 1);
  const flops = 2 * 12 * d * d * layers * tokens + layers * attentionFlops + 2 * d * config.vocabSize * sampled;

  const kvPerToken = kvBytesPerTokenOn(config, device);
  let kvRead = 0;
  for (let s = 0; s < batch.contextLens.length; s++) kvRead += batch.contextLens[s] * kvPerToken;
  const bytes = weightCount(config) * device.dtypeBytes + kvRead + tokens * kvPerToken;

  const computeMs = (flops / (device.peakFlops * device.efficiency)) * 1000;
  const memoryMs = (bytes / (device.bandwidth * device.efficiency)) * 1000;
  if (device.fitted) return { flops, bytes, ms: predictStepMs(device.fitted, stepShape(batch)) };
  return { flops, bytes, ms: Math.max(computeMs, memoryMs) + device.stepOverheadMs };
}
