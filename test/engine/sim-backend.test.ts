import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ForwardBatch } from '../../src/engine/backend/backend.ts';
import { namedDevices } from '../../src/engine/backend/sim/gpus.ts';
import { createSimBackend } from '../../src/engine/backend/sim/sim-backend.ts';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { hash2 } from '../../src/engine/sampling-rng.ts';

const config: ModelConfig = { name: 'test', vocabSize: 50257, nCtx: 64, nEmbd: 8, nLayer: 1, nHead: 1, layerNormEps: 1e-5 };
const numBlocks = 6;
const blockSize = 4;
const seed = 7;

/** The sim's token as first defined: every slot of the context read afresh through the block table. */
function referenceToken(slots: Uint32Array, table: number[], length: number, temperature: number, uniform: number): number {
  let h = seed;
  const full = Math.floor(length / blockSize);
  for (let i = 0; i < full; i++) {
    let block = 0x9e3779b9;
    for (let k = 0; k < blockSize; k++) block = hash2(block, slots[table[i] * blockSize + k]);
    h = hash2(h, block);
  }
  for (let pos = full * blockSize; pos < length; pos++) h = hash2(h, slots[table[full] * blockSize + (pos % blockSize)]);
  if (temperature > 0) h = hash2(h, Math.floor(uniform * 4294967296));
  return h % config.vocabSize;
}

interface Row {
  table: number[];
  length: number;
  /** Positions written this step: the last `written` of the context. */
  written: number;
  token: number;
  temperature: number;
}

function batchOf(rows: Row[]): ForwardBatch {
  const maxBlocks = Math.max(1, ...rows.map((r) => r.table.length));
  const tokenIds: number[] = [];
  const positions: number[] = [];
  const slotMapping: number[] = [];
  const queryStart = [0];
  const blockTables: number[] = [];
  for (const row of rows) {
    for (let pos = row.length - row.written; pos < row.length; pos++) {
      tokenIds.push(row.token + pos);
      positions.push(pos);
      slotMapping.push(row.table[Math.floor(pos / blockSize)] * blockSize + (pos % blockSize));
    }
    queryStart.push(tokenIds.length);
    for (let b = 0; b < maxBlocks; b++) blockTables.push(b < row.table.length ? row.table[b] : -1);
  }
  return {
    tokenIds: Int32Array.from(tokenIds),
    positions: Int32Array.from(positions),
    slotMapping: Int32Array.from(slotMapping),
    queryStart: Int32Array.from(queryStart),
    contextLens: Int32Array.from(rows.map((r) => r.length)),
    blockTables: Int32Array.from(blockTables),
    maxBlocksPerSeq: maxBlocks,
    sampleSeqs: Int32Array.from(rows.map((_, i) => i)),
    temperature: Float32Array.from(rows.map((r) => r.temperature)),
    topK: new Int32Array(rows.length),
    topP: new Float32Array(rows.length).fill(1),
    uniform: Float32Array.from(rows.map((_, i) => (i + 0.5) / rows.length)),
  };
}

// Block tables drawn from a small pool, so that sequences share blocks, contexts grow, shrink and
// are written over (decode, recompute after preemption, a block reused by another sequence).
const row = fc
  .record({
    table: fc.uniqueArray(fc.integer({ min: 0, max: numBlocks - 1 }), { minLength: 1, maxLength: 4 }),
    fill: fc.double({ min: 0, max: 1, noNaN: true }),
    write: fc.double({ min: 0, max: 1, noNaN: true }),
    token: fc.integer({ min: 0, max: 1000 }),
    temperature: fc.constantFrom(0, 0, 0.8),
  })
  .map(({ table, fill, write, token, temperature }): Row => {
    const length = 1 + Math.floor(fill * (table.length * blockSize - 1));
    return { table, length, written: Math.floor(write * (length + 1)), token, temperature };
  });

describe('the sim backend', () => {
  it('samples the token a from-scratch read of each context gives, whatever it kept between steps', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(row, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 30 }), async (steps) => {
        const sim = createSimBackend({ config, kv: { numBlocks, blockSize }, device: namedDevices['A100-40GB'], seed });
        const slots = new Uint32Array(numBlocks * blockSize);
        for (const rows of steps) {
          const batch = batchOf(rows);
          for (let t = 0; t < batch.slotMapping.length; t++) slots[batch.slotMapping[t]] = hash2(batch.tokenIds[t], batch.positions[t]);
          const { tokens } = await sim.step(batch);
          const want = rows.map((r, i) => referenceToken(slots, r.table, r.length, r.temperature, batch.uniform[i]));
          expect([...tokens]).toEqual(want);
        }
        await sim.close();
      }),
      { numRuns: 300 },
    );
  });

  it('extends a decoding context one slot at a time as a from-scratch read would', async () => {
    const sim = createSimBackend({ config, kv: { numBlocks, blockSize }, device: namedDevices['A100-40GB'], seed });
    const slots = new Uint32Array(numBlocks * blockSize);
    const table = [3, 0, 5, 1];
    for (let length = 1; length <= table.length * blockSize; length++) {
      const rows: Row[] = [{ table, length, written: 1, token: 11, temperature: 0 }];
      const batch = batchOf(rows);
      for (let t = 0; t < batch.slotMapping.length; t++) slots[batch.slotMapping[t]] = hash2(batch.tokenIds[t], batch.positions[t]);
      const { tokens } = await sim.step(batch);
      expect(tokens[0]).toBe(referenceToken(slots, table, length, 0, 0));
    }
  });
});
