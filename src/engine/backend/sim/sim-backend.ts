// The sim backend: no model math. It times each step with the roofline cost model and
// samples tokens from a hash of each sequence's cached context, read back through its block
// table. The token therefore depends on exactly the K/V the paging put in place: a wrong
// block table or a bad prefix-cache hit changes the output, so tests can check the engine's
// bookkeeping on the sim as they would on the real model.
import type { ModelConfig } from '../../model/config.ts';
import { hash2 } from '../../sampling-rng.ts';
import type { Backend, ForwardBatch, KvLayout, StepResult } from '../types.ts';
import { type StepCost, stepCost } from './cost-model.ts';
import type { DeviceSpec } from './gpus.ts';

export interface SimBackend extends Backend {
  readonly spec: DeviceSpec;
  /** The modelled duration of the step this batch describes. */
  cost(batch: ForwardBatch): StepCost;
}

export interface SimBackendOptions {
  config: ModelConfig;
  kv: KvLayout;
  device: DeviceSpec;
  /** Seeds the token hash (different seeds, different "models"). */
  seed: number;
}

export function createSimBackend(options: SimBackendOptions): SimBackend {
  const { config, kv, device, seed } = options;
  // One 32-bit stand-in per K/V slot: a hash of the token and position written there.
  const slots = new Uint32Array(kv.numBlocks * kv.blockSize);
  let closed = false;

  function contextHash(batch: ForwardBatch, s: number): number {
    let h = seed >>> 0;
    const table = s * batch.maxBlocksPerSeq;
    for (let pos = 0; pos < batch.contextLens[s]; pos++) {
      const block = batch.blockTables[table + Math.floor(pos / kv.blockSize)];
      h = hash2(h, slots[block * kv.blockSize + (pos % kv.blockSize)]);
    }
    return h;
  }

  return {
    name: 'sim',
    device: `simulated ${device.name}`,
    config,
    kv,
    spec: device,
    cost: (batch) => stepCost(config, device, batch),
    async step(batch: ForwardBatch): Promise<StepResult> {
      if (closed) throw new Error('sim backend is closed');
      for (let t = 0; t < batch.tokenIds.length; t++) {
        slots[batch.slotMapping[t]] = hash2(batch.tokenIds[t], batch.positions[t]);
      }
      const tokens = new Int32Array(batch.sampleSeqs.length);
      for (let r = 0; r < tokens.length; r++) {
        let h = contextHash(batch, batch.sampleSeqs[r]);
        // Greedy rows ignore the draw; sampled rows mix it in. top-k/top-p have no logits to act on.
        if (batch.temperature[r] > 0) h = hash2(h, Math.floor(batch.uniform[r] * 4294967296));
        tokens[r] = h % config.vocabSize;
      }
      return { tokens };
    },
    async close() {
      closed = true;
    },
  };
}
