// One token from one row of logits. Order of filters as in Hugging Face: temperature, then
// top-k, then top-p (the smallest set of most likely tokens whose mass reaches p). The random
// draw comes in as `uniform` so a seeded engine replays exactly. Ties go to the lower token id.

export interface SampleScratch {
  probs: Float64Array; // [vocab], indexed by token id
  order: Int32Array; // [vocab], candidate token ids
}

export function createSampleScratch(vocab: number): SampleScratch {
  return { probs: new Float64Array(vocab), order: new Int32Array(vocab) };
}

export function sampleToken(
  logits: Float32Array,
  offset: number,
  vocab: number,
  temperature: number,
  topK: number,
  topP: number,
  uniform: number,
  scratch: SampleScratch,
): number {
  if (temperature <= 0 || topK === 1) return argmax(logits, offset, vocab);
  const { probs, order } = scratch;
  let n = vocab;
  let sorted = false;
  if (topK > 0 && topK < vocab) {
    n = selectTopK(logits, offset, vocab, topK, order);
    sorted = true;
  } else {
    for (let i = 0; i < vocab; i++) order[i] = i;
  }

  let max = -Infinity;
  for (let j = 0; j < n; j++) max = Math.max(max, logits[offset + order[j]]);
  let total = 0;
  for (let j = 0; j < n; j++) {
    const id = order[j];
    const p = Math.exp((logits[offset + id] - max) / temperature);
    probs[id] = p;
    total += p;
  }

  if (topP < 1) {
    if (!sorted) n = sortLikelyCandidates(probs, order, vocab, topP * total);
    let mass = 0;
    let kept = 0;
    while (kept < n) {
      mass += probs[order[kept++]];
      if (mass >= topP * total) break;
    }
    n = kept;
    total = mass;
  }

  const target = uniform * total;
  let mass = 0;
  for (let j = 0; j < n; j++) {
    mass += probs[order[j]];
    if (mass > target) return order[j];
  }
  return order[n - 1];
}

export type ArgmaxFn = typeof argmax;

export function argmax(logits: Float32Array, offset: number, vocab: number): number {
  let best = 0;
  let bestValue = logits[offset];
  for (let i = 1; i < vocab; i++) {
    if (logits[offset + i] > bestValue) {
      bestValue = logits[offset + i];
      best = i;
    }
  }
  return best;
}

/** The k largest logits' ids into order[0..k), largest first. */
function selectTopK(logits: Float32Array, offset: number, vocab: number, k: number, order: Int32Array): number {
  let n = 0;
  for (let i = 0; i < vocab; i++) {
    const v = logits[offset + i];
    if (n === k && !(v > logits[offset + order[k - 1]])) continue;
    let j = n < k ? n++ : k - 1;
    while (j > 0 && logits[offset + order[j - 1]] < v) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }
  return n;
}

/**
 * Puts, sorted by probability, a set of ids that surely contains the nucleus into order[0..m).
 * Sorting all 50k ids per token would cost milliseconds; instead lower a threshold until the
 * ids above it hold the needed mass: everything above the threshold is a prefix of the sorted
 * order, so the nucleus is a prefix of it.
 */
function sortLikelyCandidates(probs: Float64Array, order: Int32Array, vocab: number, needed: number): number {
  let threshold = 0.5; // probs are relative to the largest, which is exactly 1
  let m = 0;
  for (;;) {
    let mass = 0;
    m = 0;
    for (let i = 0; i < vocab; i++) {
      if (probs[i] >= threshold) {
        order[m++] = i;
        mass += probs[i];
      }
    }
    if (mass >= needed || threshold === 0) break;
    threshold = threshold < 1e-30 ? 0 : threshold / 16;
  }
  order.subarray(0, m).sort((a, b) => probs[b] - probs[a] || a - b);
  return m;
}
