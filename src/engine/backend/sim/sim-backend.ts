// The sim backend: no model math. It times each step with the roofline cost model and
// samples tokens from a hash of each sequence's cached context, read back through its block
// table. The token therefore depends on exactly the K/V the paging put in place: a wrong
// block table or a bad prefix-cache hit changes the output, so tests can check the engine's
// bookkeeping on the sim as they would on the real model.
import type { ModelConfig } from '../../model/model-config.ts';
import { Int32Chunks } from '../../int32-chunks.ts';
import { hash2 } from '../../sampling-rng.ts';
import type { Backend, ForwardBatch, KvLayout, StepResult } from '../backend.ts';
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
  const { blockSize } = kv;
  const slots = new Uint32Array(kv.numBlocks * blockSize);
  // Each block's hash over all its slots, kept until one of them is written again: a context is
  // then read back a block at a time (still through the block table), not a slot at a time,
  // so a step costs O(context / block size) per sequence instead of O(context).
  // Hashes are kept as int32 (the same 32 bits as hash2's unsigned result): V8 keeps an int32
  // returned from a function unboxed, while an unsigned value past 2^31 becomes a heap number,
  // an allocation per call in the sim's hottest loop.
  const blockHashes = new Int32Array(kv.numBlocks);
  const blockHashValid = new Uint8Array(kv.numBlocks);
  // A context's last block, filled only part way, is folded slot by slot into the hash carried
  // in from the blocks before it. Each block keeps its last such fold (the hash carried in, how
  // many slots, the result) until one of those slots is written again, so a decode step, which
  // adds one slot, extends the fold by that slot instead of folding the block again.
  const partialIn = new Int32Array(kv.numBlocks);
  const partialLen = new Int32Array(kv.numBlocks);
  const partialOut = new Int32Array(kv.numBlocks);
  // Each step's sampled tokens, handed to the engine to keep.
  const results = new Int32Chunks();
  let closed = false;

  function blockHash(block: number): number {
    if (blockHashValid[block] === 0) {
      let h = 0x9e3779b9 | 0;
      for (let k = 0; k < blockSize; k++) h = hash2(h, slots[block * blockSize + k]) | 0;
      blockHashes[block] = h;
      blockHashValid[block] = 1;
    }
    return blockHashes[block];
  }

  function contextHash(batch: ForwardBatch, s: number): number {
    let h = seed | 0;
    const table = s * batch.maxBlocksPerSeq;
    const length = batch.contextLens[s];
    const fullBlocks = Math.floor(length / blockSize);
    for (let i = 0; i < fullBlocks; i++) h = hash2(h, blockHash(batch.blockTables[table + i])) | 0;
    const filled = length - fullBlocks * blockSize;
    return filled > 0 ? partialHash(batch.blockTables[table + fullBlocks], h, filled) : h;
  }

  /** Folds the first `filled` slots of `block` into `h`, slot by slot, from its kept fold when that still holds. */
  function partialHash(block: number, h: number, filled: number): number {
    const carried = h;
    let k = 0;
    if (partialLen[block] > 0 && partialLen[block] <= filled && partialIn[block] === carried) {
      k = partialLen[block];
      h = partialOut[block];
    }
    for (; k < filled; k++) h = hash2(h, slots[block * blockSize + k]) | 0;
    partialIn[block] = carried;
    partialLen[block] = filled;
    partialOut[block] = h;
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
        const slot = batch.slotMapping[t];
        slots[slot] = hash2(batch.tokenIds[t], batch.positions[t]);
        const block = Math.floor(slot / blockSize);
        blockHashValid[block] = 0;
        if (slot - block * blockSize < partialLen[block]) partialLen[block] = 0;
      }
      const tokens = results.take(batch.sampleSeqs.length);
      for (let r = 0; r < tokens.length; r++) {
        let h = contextHash(batch, batch.sampleSeqs[r]) >>> 0;
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
