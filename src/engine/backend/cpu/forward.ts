// One forward pass over a ragged batch, run by every thread at once: each does its share of an
// op and meets the others at a barrier before the next op reads what they wrote. Rows are split
// for the row-wise ops, output columns for the matmuls (each thread streams its own slice of
// every weight matrix), (token, head) pairs for attention.

import type { ModelConfig } from '../../model/config.ts';
import type { KvLayout } from '../types.ts';
import type { AttentionFn } from './attention.ts';
import type { Activations, KvPool, PackedWeights } from './buffers.ts';
import { embed } from './embed.ts';
import type { GeluFn } from './gelu.ts';
import { writeKv } from './kv-write.ts';
import { layerNorm, layerNormRow } from './layernorm.ts';
import type { MatmulFn } from './matmul.ts';
import { sampleToken, type ArgmaxFn, type SampleScratch } from './sample.ts';
import { barrier, CTL, splitRange } from './sync.ts';

export interface ThreadState {
  config: ModelConfig;
  kv: KvLayout;
  weights: PackedWeights;
  pool: KvPool;
  act: Activations;
  ctl: Int32Array;
  tid: number;
  nThreads: number;
  attention: AttentionFn;
  /** This thread's attention scores, [nCtx], in the shared memory so the kernels reach it. */
  scores: Float32Array;
  sample: SampleScratch;
  matmul: MatmulFn;
  gelu: GeluFn;
  argmax: ArgmaxFn;
  /** This thread's output columns of each matmul: fixed by the shapes, so computed once. */
  columns: ColumnShares;
}

export interface ColumnShares {
  qkv: [number, number];
  embd: [number, number];
  fc: [number, number];
  vocab: [number, number];
}

export function columnShares(config: ModelConfig, tid: number, nThreads: number): ColumnShares {
  const c = config.nEmbd;
  return {
    qkv: splitRange(3 * c, tid, nThreads, 4),
    embd: splitRange(c, tid, nThreads, 4),
    fc: splitRange(4 * c, tid, nThreads, 4),
    vocab: splitRange(config.vocabSize, tid, nThreads, 4),
  };
}

export function forward(s: ThreadState): void {
  const { config, weights, act, pool, ctl, tid, nThreads, matmul, gelu, attention } = s;
  const c = config.nEmbd;
  const eps = config.layerNormEps;
  const rows = ctl[CTL.TOKENS];
  const sampledRows = ctl[CTL.ROWS];
  const maxBlocksPerSeq = ctl[CTL.MAX_BLOCKS_PER_SEQ];
  const sync = (): void => barrier(ctl, nThreads);
  const [r0, r1] = splitRange(rows, tid, nThreads);
  const layerStride = s.kv.numBlocks * s.kv.blockSize * c;
  const [q0, q1] = s.columns.qkv;
  const [c0, c1] = s.columns.embd;
  const [f0, f1] = s.columns.fc;
  const [v0, v1] = s.columns.vocab;

  embed(weights.wte, weights.wpe, act.tokenIds, act.positions, act.x, c, r0, r1);
  sync();
  for (let l = 0; l < config.nLayer; l++) {
    const w = weights.layers[l];
    const layerBase = l * layerStride;

    layerNorm(act.x, act.xn, w.ln1Gamma, w.ln1Beta, c, eps, r0, r1);
    sync();
    matmul(act.xn, w.qkvW, w.qkvB, act.qkv, rows, c, 3 * c, q0, q1, false);
    writeKv(act.qkv, act.slotMapping, rows, c, pool.k, pool.v, layerBase, q0, q1);
    sync();
    attention(act.qkv, pool.k, pool.v, layerBase, act.attn, rows, act.tokenSeq, act.positions, act.blockTables,
      maxBlocksPerSeq, s.kv.blockSize, c, config.nHead, tid, nThreads, s.scores);
    sync();
    matmul(act.attn, w.attnProjW, w.attnProjB, act.x, rows, c, c, c0, c1, true);
    sync();

    layerNorm(act.x, act.xn, w.ln2Gamma, w.ln2Beta, c, eps, r0, r1);
    sync();
    matmul(act.xn, w.fcW, w.fcB, act.hidden, rows, c, 4 * c, f0, f1, false);
    gelu(act.hidden, rows, 4 * c, f0, f1);
    sync();
    matmul(act.hidden, w.fcProjW, w.fcProjB, act.x, rows, 4 * c, c, c0, c1, true);
    sync();
  }

  // Only the last token of each sequence that samples this step goes through the LM head.
  const [s0, s1] = splitRange(sampledRows, tid, nThreads);
  for (let r = s0; r < s1; r++) {
    const lastToken = act.queryStart[act.sampleSeqs[r] + 1] - 1;
    layerNormRow(act.x, lastToken, act.final, r, weights.lnfGamma, weights.lnfBeta, c, eps);
  }
  sync();
  const vocab = config.vocabSize;
  matmul(act.final, weights.wte, weights.zeroBias, act.logits, sampledRows, c, vocab, v0, v1, false);
  sync();
  for (let r = s0; r < s1; r++) {
    const greedy = act.temperature[r] <= 0 || act.topK[r] === 1;
    act.sampled[r] = greedy
      ? s.argmax(act.logits, r * vocab, vocab)
      : sampleToken(act.logits, r * vocab, vocab, act.temperature[r], act.topK[r], act.topP[r], act.uniform[r], s.sample);
  }
  sync();
}
