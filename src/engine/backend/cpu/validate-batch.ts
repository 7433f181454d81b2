// A malformed batch would make the kernels read another sequence's K/V or garbage, silently.
// Checking costs O(tokens + blocks) per step, nothing next to the forward pass, and turns an
// engine bug into an error that says which entry is wrong.

import type { ModelConfig } from '../../model/model-config.ts';
import type { ForwardBatch, KvLayout } from '../backend.ts';

export function validateBatch(batch: ForwardBatch, config: ModelConfig, kv: KvLayout): void {
  const fail = (message: string): never => {
    throw new Error(`cpu backend: invalid batch: ${message}`);
  };
  const t = batch.tokenIds.length;
  const s = batch.queryStart.length - 1;
  const r = batch.sampleSeqs.length;
  const m = batch.maxBlocksPerSeq;
  if (s < 0) fail('queryStart must hold S + 1 offsets');
  if (batch.positions.length !== t || batch.slotMapping.length !== t) fail(`tokenIds, positions and slotMapping differ in length (${t}, ${batch.positions.length}, ${batch.slotMapping.length})`);
  if (batch.contextLens.length !== s) fail(`contextLens has ${batch.contextLens.length} entries for ${s} sequences`);
  if (!Number.isInteger(m) || m < 1 || batch.blockTables.length < s * m) fail(`blockTables holds ${batch.blockTables.length} entries, need ${s} x maxBlocksPerSeq ${m}`);
  for (const [name, arr] of [['temperature', batch.temperature], ['topK', batch.topK], ['topP', batch.topP], ['uniform', batch.uniform]] as const) {
    if (arr.length !== r) fail(`${name} has ${arr.length} entries for ${r} sampled rows`);
  }
  if (batch.queryStart[0] !== 0 || batch.queryStart[s] !== t) fail(`queryStart must run from 0 to ${t}`);
  const slots = kv.numBlocks * kv.blockSize;
  for (let seq = 0; seq < s; seq++) {
    const start = batch.queryStart[seq];
    const end = batch.queryStart[seq + 1];
    if (end <= start) fail(`sequence ${seq} has no tokens (queryStart ${start}..${end})`);
    const ctx = batch.contextLens[seq];
    if (ctx < end - start || ctx > m * kv.blockSize || ctx > config.nCtx) fail(`contextLens[${seq}] = ${ctx} is out of range`);
    for (let b = 0; b * kv.blockSize < ctx; b++) {
      const block = batch.blockTables[seq * m + b];
      if (!(block >= 0 && block < kv.numBlocks)) fail(`blockTables[${seq}][${b}] = ${block} is not a block of the pool (0..${kv.numBlocks - 1})`);
    }
    for (let i = start; i < end; i++) {
      const tok = batch.tokenIds[i];
      if (!(tok >= 0 && tok < config.vocabSize)) fail(`tokenIds[${i}] = ${tok} is outside the vocabulary (0..${config.vocabSize - 1})`);
      const pos = batch.positions[i];
      if (!(pos >= 0 && pos < ctx)) fail(`positions[${i}] = ${pos} is outside sequence ${seq}'s context (0..${ctx - 1})`);
      const slot = batch.blockTables[seq * m + Math.floor(pos / kv.blockSize)] * kv.blockSize + (pos % kv.blockSize);
      if (batch.slotMapping[i] !== slot || slot >= slots) fail(`slotMapping[${i}] = ${batch.slotMapping[i]}, but the block table puts position ${pos} at slot ${slot}`);
    }
  }
  for (let row = 0; row < r; row++) {
    const seq = batch.sampleSeqs[row];
    if (!(seq >= 0 && seq < s)) fail(`sampleSeqs[${row}] = ${seq} is not a sequence of the batch`);
    if (!(batch.temperature[row] >= 0)) fail(`temperature[${row}] = ${batch.temperature[row]} must be >= 0`);
    if (!(batch.topK[row] >= 0)) fail(`topK[${row}] = ${batch.topK[row]} must be >= 0`);
    if (!(batch.topP[row] > 0 && batch.topP[row] <= 1)) fail(`topP[${row}] = ${batch.topP[row]} must be in (0, 1]`);
    if (!(batch.uniform[row] >= 0 && batch.uniform[row] < 1)) fail(`uniform[${row}] = ${batch.uniform[row]} must be in [0, 1)`);
  }
}
