// Lays a step's scheduled sequences out as the backend's flat ragged batch. The arrays are
// allocated once at the largest size a step can reach; each step fills a prefix of them.
import type { ForwardBatch } from '../backend/backend.ts';
import { samplingUniform } from '../sampling-rng.ts';
import type { Sequence } from './sequence.ts';

const LARGEST_FLOAT32_BELOW_ONE = 1 - 2 ** -24;
// The batch holds a request's sampling settings as float32 and int32, which its numbers may
// lie beyond: a top_p under 2^-126 rounded to 0 and a top_k over 2^31 - 1 wrapped (3e9 to a
// negative k), and either failed the step's batch, and with it the engine and every request
// on it. Each is taken to the nearest value that means the same: a top_p of at most 1/vocab
// keeps the most likely token alone (its probability is at least that), a top_k past the
// vocabulary is no top-k, and a temperature past float32's largest is as flat as that one
// (float32 would make it Infinity, which WGSL leaves undefined).
const SMALLEST_NORMAL_FLOAT32 = 2 ** -126;
const LARGEST_FLOAT32 = 3.4028234663852886e38;
const LARGEST_INT32 = 2 ** 31 - 1;

export class ForwardBatchBuilder {
  private readonly blockSize: number;
  private readonly tokenIds: Int32Array;
  private readonly positions: Int32Array;
  private readonly slotMapping: Int32Array;
  private readonly queryStart: Int32Array;
  private readonly contextLens: Int32Array;
  private readonly blockTables: Int32Array;
  private readonly sampleSeqs: Int32Array;
  private readonly temperature: Float32Array;
  private readonly topK: Int32Array;
  private readonly topP: Float32Array;
  private readonly uniform: Float32Array;

  constructor(maxTokens: number, maxSeqs: number, maxBlocksPerSeq: number, blockSize: number) {
    this.blockSize = blockSize;
    this.tokenIds = new Int32Array(maxTokens);
    this.positions = new Int32Array(maxTokens);
    this.slotMapping = new Int32Array(maxTokens);
    this.queryStart = new Int32Array(maxSeqs + 1);
    this.contextLens = new Int32Array(maxSeqs);
    this.blockTables = new Int32Array(maxSeqs * maxBlocksPerSeq);
    this.sampleSeqs = new Int32Array(maxSeqs);
    this.temperature = new Float32Array(maxSeqs);
    this.topK = new Int32Array(maxSeqs);
    this.topP = new Float32Array(maxSeqs);
    this.uniform = new Float32Array(maxSeqs);
  }

  build(seqs: readonly Sequence[]): ForwardBatch {
    const bs = this.blockSize;
    let maxBlocks = 1;
    for (const seq of seqs) maxBlocks = Math.max(maxBlocks, seq.blockTable.length);
    let t = 0;
    let rows = 0;
    for (let s = 0; s < seqs.length; s++) {
      const seq = seqs[s];
      this.queryStart[s] = t;
      const end = seq.numComputed + seq.numScheduled;
      for (let pos = seq.numComputed; pos < end; pos++, t++) {
        this.tokenIds[t] = seq.tokens[pos];
        this.positions[t] = pos;
        this.slotMapping[t] = seq.blockTable[Math.floor(pos / bs)] * bs + (pos % bs);
      }
      this.contextLens[s] = end;
      const row = s * maxBlocks;
      for (let b = 0; b < maxBlocks; b++) this.blockTables[row + b] = b < seq.blockTable.length ? seq.blockTable[b] : -1;
      if (seq.samples) {
        const p = seq.params;
        this.sampleSeqs[rows] = s;
        this.temperature[rows] = Math.min(p.temperature, LARGEST_FLOAT32);
        this.topK[rows] = Math.min(p.topK, LARGEST_INT32);
        this.topP[rows] = Math.max(p.topP, SMALLEST_NORMAL_FLOAT32);
        // float32 would round a draw just under 1 up to 1, outside [0, 1).
        this.uniform[rows] = Math.min(samplingUniform(p.seed, seq.numOutputTokens), LARGEST_FLOAT32_BELOW_ONE);
        rows++;
      }
    }
    const S = seqs.length;
    this.queryStart[S] = t;
    return {
      tokenIds: this.tokenIds.subarray(0, t),
      positions: this.positions.subarray(0, t),
      slotMapping: this.slotMapping.subarray(0, t),
      queryStart: this.queryStart.subarray(0, S + 1),
      contextLens: this.contextLens.subarray(0, S),
      blockTables: this.blockTables.subarray(0, S * maxBlocks),
      maxBlocksPerSeq: maxBlocks,
      sampleSeqs: this.sampleSeqs.subarray(0, rows),
      temperature: this.temperature.subarray(0, rows),
      topK: this.topK.subarray(0, rows),
      topP: this.topP.subarray(0, rows),
      uniform: this.uniform.subarray(0, rows),
    };
  }
}
