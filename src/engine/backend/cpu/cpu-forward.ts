// One forward pass over a ragged batch, run by every thread at once: each does its share of an
// op and meets the others at a barrier before the next op reads what they wrote. Rows are split
// for the row-wise ops. The matmuls and attention, nearly all the time of a step, are shared by
// speed instead: threads take chunks of output columns (each a contiguous slice of the weight
// matrix) or of (token, head) pairs from a counter until none are left (thread-sync.ts, takeWork), so a
// thread that another process slowed down does not hold the others at the barrier. Which thread
// computes a chunk never changes its bits: a row's results do not depend on the split either.

import type { ModelConfig } from '../../model/model-config.ts';
import type { KvLayout } from '../backend.ts';
import type { AttentionFn } from './attention.ts';
import type { Activations, KvPool, PackedWeights } from './buffers.ts';
import { embed } from './embed.ts';
import type { GeluFn } from './gelu.ts';
import { writeKv } from './kv-write.ts';
import { layerNorm, layerNormRow } from './layernorm.ts';
import type { MatmulFn } from './matmul.ts';
import { sampleToken, type ArgmaxFn, type SampleScratch } from './sample.ts';
import { barrier, CTL, splitRange, takeWork } from './thread-sync.ts';

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
}

/**
 * Weights per chunk of a matmul (192 KB: 64 rows at gpt2's width): enough work that taking a
 * chunk costs nothing, little enough that the last one does not keep the other threads waiting.
 */
const CHUNK_WEIGHTS = 64 * 768;

/** At least this many chunks per thread, so a small matrix (gpt2-tiny's) is still shared evenly. */
const MIN_CHUNKS_PER_THREAD = 2;

/**
 * Output columns per chunk of an [n, k] matmul: whole 1x8 blocks of the SIMD kernel, about
 * CHUNK_WEIGHTS weights, and no more than an even share of MIN_CHUNKS_PER_THREAD per thread.
 */
function columnChunk(k: number, n: number, nThreads: number): number {
  const bySize = Math.floor(CHUNK_WEIGHTS / k / 8) * 8;
  const byShare = Math.ceil(n / (nThreads * MIN_CHUNKS_PER_THREAD) / 8) * 8;
  return Math.max(8, Math.min(bySize, byShare));
}

/** Attention is cut into this many chunks per thread: small enough to even out, few enough to be cheap. */
const ATTENTION_CHUNKS_PER_THREAD = 16;

// Each op that threads share by chunks counts its chunks in a counter of its own, reset by the
// caller before every step: five per layer and one for the LM head.
const OPS_PER_LAYER = 5;
const QKV = 0, ATTENTION = 1, PROJ = 2, FC = 3, FC_PROJ = 4;

/** The work counters a forward pass uses (see createControl). */
export function workCounters(config: ModelConfig): number {
  return OPS_PER_LAYER * config.nLayer + 1;
}

export function forward(s: ThreadState): void {
  const { config, weights, act, pool, ctl, tid, nThreads, gelu, attention } = s;
  const c = config.nEmbd;
  const eps = config.layerNormEps;
  const rows = ctl[CTL.TOKENS];
  const sampledRows = ctl[CTL.ROWS];
  const maxBlocksPerSeq = ctl[CTL.MAX_BLOCKS_PER_SEQ];
  const sync = (): void => barrier(ctl, nThreads);
  const [r0, r1] = splitRange(rows, tid, nThreads);
  const layerStride = s.kv.numBlocks * s.kv.blockSize * c;
  const items = rows * config.nHead;
  const attentionChunk = Math.ceil(items / (nThreads * ATTENTION_CHUNKS_PER_THREAD));

  embed(weights.wte, weights.wpe, act.tokenIds, act.positions, act.x, c, r0, r1);
  sync();
  for (let l = 0; l < config.nLayer; l++) {
    const w = weights.layers[l];
    const layerBase = l * layerStride;
    const op = l * OPS_PER_LAYER;

    layerNorm(act.x, act.xn, w.ln1Gamma, w.ln1Beta, c, eps, r0, r1);
    sync();
    sharedMatmul(s, op + QKV, act.xn, w.qkvW, w.qkvB, act.qkv, rows, c, 3 * c, false, (n0, n1) =>
      writeKv(act.qkv, act.slotMapping, rows, c, config.nHead, s.kv.blockSize, pool.k, pool.v, layerBase, n0, n1));
    sync();
    for (let i0 = takeWork(ctl, op + ATTENTION) * attentionChunk; i0 < items; i0 = takeWork(ctl, op + ATTENTION) * attentionChunk) {
      attention(act.qkv, pool.k, pool.v, layerBase, act.attn, i0, Math.min(items, i0 + attentionChunk), act.tokenSeq, act.positions,
        act.blockTables, maxBlocksPerSeq, s.kv.blockSize, c, config.nHead, s.scores);
    }
    sync();
    sharedMatmul(s, op + PROJ, act.attn, w.attnProjW, w.attnProjB, act.x, rows, c, c, true);
    sync();

    layerNorm(act.x, act.xn, w.ln2Gamma, w.ln2Beta, c, eps, r0, r1);
    sync();
    sharedMatmul(s, op + FC, act.xn, w.fcW, w.fcB, act.hidden, rows, c, 4 * c, false, (n0, n1) => gelu(act.hidden, rows, 4 * c, n0, n1));
    sync();
    sharedMatmul(s, op + FC_PROJ, act.hidden, w.fcProjW, w.fcProjB, act.x, rows, 4 * c, c, true);
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
  sharedMatmul(s, OPS_PER_LAYER * config.nLayer, act.final, weights.wte, weights.zeroBias, act.logits, sampledRows, c, vocab, false);
  sync();
  for (let r = s0; r < s1; r++) {
    const greedy = act.temperature[r] <= 0 || act.topK[r] === 1;
    act.sampled[r] = greedy
      ? s.argmax(act.logits, r * vocab, vocab)
      : sampleToken(act.logits, r * vocab, vocab, act.temperature[r], act.topK[r], act.topP[r], act.uniform[r], s.sample);
  }
  sync();
}

/**
 * y (+)= x w^T + b over this thread's chunks of the n output columns, taken until none are
 * left; `then` runs on each chunk's columns right after it (the K/V write, GELU) while they
 * are still in cache.
 */
function sharedMatmul(s: ThreadState, counter: number, x: Float32Array, w: Float32Array, b: Float32Array, y: Float32Array,
  rows: number, k: number, n: number, accumulate: boolean, then?: (n0: number, n1: number) => void): void {
  if (rows === 0) return; // a step that samples nothing has no LM head to share
  const chunk = columnChunk(k, n, s.nThreads);
  for (let n0 = takeWork(s.ctl, counter) * chunk; n0 < n; n0 = takeWork(s.ctl, counter) * chunk) {
    const n1 = Math.min(n, n0 + chunk);
    s.matmul(x, w, b, y, rows, k, n, n0, n1, accumulate);
    then?.(n0, n1);
  }
}
