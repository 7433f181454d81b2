// Causal self-attention over the paged KV pool. A token at position p attends to positions
// 0..p of its own sequence, found through the sequence's block table; this covers a decode
// token, a whole prompt, and a prefill chunk that follows a cached prefix alike, because the
// chunk's own K/V were written to the pool before this runs.
// Work items are (token, head) pairs, item = token * nHead + head; this computes items
// [first, end), and the threads take such ranges in small chunks as they go (cpu-forward.ts), so
// the later tokens of a prompt, which see longer contexts, do not all land on one thread.
// This is the plain-TS version; wasm/kernels.wat has the same loops in SIMD.

export type AttentionFn = typeof attention;

export function attention(
  qkv: Float32Array,
  kPool: Float32Array,
  vPool: Float32Array,
  layerBase: number,
  out: Float32Array,
  first: number,
  end: number,
  tokenSeq: Int32Array,
  positions: Int32Array,
  blockTables: Int32Array,
  maxBlocksPerSeq: number,
  blockSize: number,
  c: number,
  nHead: number,
  scores: Float32Array,
): void {
  const hd = c / nHead;
  const scale = 1 / Math.sqrt(hd);
  for (let item = first; item < end; item++) {
    const t = (item / nHead) | 0;
    const h = item - t * nHead;
    const q = t * 3 * c + h * hd;
    const table = tokenSeq[t] * maxBlocksPerSeq;
    const length = positions[t] + 1;
    // See kv-write.ts: inside a block, a head's rows are hd floats apart.
    const head = layerBase + h * blockSize * hd;

    for (let j0 = 0, blk = table; j0 < length; j0 += blockSize, blk++) {
      const jEnd = Math.min(length, j0 + blockSize);
      let key = head + blockTables[blk] * blockSize * c;
      for (let j = j0; j < jEnd; j++, key += hd) {
        let dot = 0;
        for (let d = 0; d < hd; d++) dot += qkv[q + d] * kPool[key + d];
        scores[j] = dot * scale;
      }
    }

    const inv = 1 / softmaxExp(scores, length);

    const o = t * c + h * hd;
    out.fill(0, o, o + hd);
    for (let j0 = 0, blk = table; j0 < length; j0 += blockSize, blk++) {
      const jEnd = Math.min(length, j0 + blockSize);
      let value = head + blockTables[blk] * blockSize * c;
      for (let j = j0; j < jEnd; j++, value += hd) {
        const p = scores[j] * inv;
        for (let d = 0; d < hd; d++) out[o + d] += p * vPool[value + d];
      }
    }
  }
}

/** scores[j] = e^(scores[j] - max) in place for j < length; returns their sum. */
export function softmaxExp(scores: Float32Array, length: number): number {
  let max = -Infinity;
  for (let j = 0; j < length; j++) if (scores[j] > max) max = scores[j];
  let sum = 0;
  for (let j = 0; j < length; j++) {
    const e = Math.exp(scores[j] - max);
    scores[j] = e;
    sum += e;
  }
  return sum;
}
