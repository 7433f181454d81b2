// One token from one row of logits. Order of filters as in Hugging Face: temperature, then
// top-k, then top-p (the smallest set of most likely tokens whose mass reaches p). The random
// draw comes in as `uniform` so a seeded engine replays exactly. Ties go to the lower token id.

/** weights[i] = e^((logits[offset + i] - max) / temperature) for i < vocab, max the row's largest logit. */
export type ExpRowFn = (logits: Float32Array, offset: number, vocab: number, temperature: number, weights: Float32Array | Float64Array) => void;

export interface SampleScratch {
  /** [vocab], by token id: a draw's unnormalised probabilities (all of them without top-k). */
  probs: Float32Array | Float64Array;
  order: Int32Array; // [vocab], candidate token ids
  /** Fills probs for a whole row: the WebAssembly kernel (into a view of its memory), or expRow. */
  expRow: ExpRowFn;
}

/** A thread's sampling scratch; `fast` is the WebAssembly row kernel with an f32 array in its memory. */
export function createSampleScratch(vocab: number, fast?: { expRow: ExpRowFn; probs: Float32Array }): SampleScratch {
  return { probs: fast?.probs ?? new Float64Array(vocab), order: new Int32Array(vocab), expRow: fast?.expRow ?? expRow };
}

export function expRow(logits: Float32Array, offset: number, vocab: number, temperature: number, weights: Float32Array | Float64Array): void {
  let max = -Infinity;
  for (let i = offset; i < offset + vocab; i++) if (logits[i] > max) max = logits[i];
  for (let i = 0; i < vocab; i++) weights[i] = Math.exp((logits[offset + i] - max) / temperature);
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
  if (topK > 0 && topK < vocab) return sampleTopK(logits, offset, vocab, temperature, topK, topP, uniform, scratch);
  const { probs, order } = scratch;
  // No top-k (the OpenAI default): every token is a candidate. Its 50k exponentials are most
  // of a draw's cost (~1 ms with Math.exp; SIMD in the WebAssembly kernel); the walk needs no sort.
  scratch.expRow(logits, offset, vocab, temperature, probs);
  let total = 0;
  for (let i = 0; i < vocab; i++) total += probs[i];
  if (topP >= 1) {
    const target = uniform * total;
    let mass = 0;
    for (let i = 0; i < vocab; i++) {
      mass += probs[i];
      if (mass > target) return i;
    }
    return vocab - 1;
  }
  // The nucleus and then the draw, each the shortest prefix of the order that reaches a mass:
  // found by selection, not by sorting the vocabulary (a flat distribution, as synthetic
  // weights give, puts most of it in the nucleus: sorting took ~8 ms a token).
  // Tokens lighter than `cutoff` weigh less than half of 1 - p of the total together, so the
  // rest already holds more than p of it, with room to spare for rounding: the nucleus is among
  // the rest (a trained model's peaked row leaves a few hundred of 50k).
  const cutoff = (0.5 * (1 - topP) * total) / vocab;
  let candidates = 0;
  for (let i = 0; i < vocab; i++) if (probs[i] >= cutoff) order[candidates++] = i;
  const rank = { logits, offset, probs, order };
  const nucleus = shortestPrefix(rank, 0, candidates, topP * total, false);
  const drawn = shortestPrefix(rank, 0, nucleus.count, uniform * nucleus.mass, true);
  return drawn.reached ? order[drawn.count - 1] : lastInOrder(rank, nucleus.count);
}

/** With top-k: its k candidates in order, then the nucleus and the draw walked over them. */
function sampleTopK(logits: Float32Array, offset: number, vocab: number, temperature: number, topK: number, topP: number, uniform: number, scratch: SampleScratch): number {
  const { probs, order } = scratch;
  let n = selectTopK(logits, offset, vocab, topK, order);
  const max = logits[offset + order[0]];
  let total = 0;
  for (let j = 0; j < n; j++) {
    const id = order[j];
    const p = Math.exp((logits[offset + id] - max) / temperature);
    probs[id] = p;
    total += p;
  }
  if (topP < 1) {
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

/** The candidates' order, most likely first: logit descending, then id ascending (as the WebGPU kernel orders them). */
interface Ranking {
  logits: Float32Array;
  offset: number;
  probs: Float32Array | Float64Array;
  order: Int32Array;
}

function before(r: Ranking, a: number, b: number): boolean {
  const la = r.logits[r.offset + a];
  const lb = r.logits[r.offset + b];
  return la > lb || (la === lb && a < b);
}

/**
 * The shortest prefix, in the ranking's order, of the ids in order[lo, hi) whose probability
 * mass reaches `threshold` (passes it, when `strict`): moved to order[lo, lo + count), in no
 * particular order, by a quickselect that weighs each side by its mass. `reached` is false
 * when rounding leaves the threshold unreached (then every id is in the prefix).
 */
function shortestPrefix(r: Ranking, lo: number, hi: number, threshold: number, strict: boolean): { count: number; mass: number; reached: boolean } {
  const { order, probs, logits, offset } = r;
  const reaches = (mass: number) => (strict ? mass > threshold : mass >= threshold);
  let accepted = 0; // mass of order[lo, start), all inside the prefix
  let start = lo;
  let end = hi;
  while (start < end) {
    const pivot = order[start + ((end - start) >> 1)];
    const pivotLogit = logits[offset + pivot];
    // order[start, w): the ids ranked before the pivot; then the pivot itself at w.
    let w = start;
    let at = start;
    let massBefore = 0;
    for (let i = start; i < end; i++) {
      const id = order[i];
      const l = logits[offset + id];
      if (l > pivotLogit || (l === pivotLogit && id < pivot)) {
        order[i] = order[w];
        if (order[i] === pivot) at = i;
        order[w++] = id;
        massBefore += probs[id];
      } else if (id === pivot) at = i;
    }
    order[at] = order[w];
    order[w] = pivot;
    if (reaches(accepted + massBefore)) {
      end = w;
      continue;
    }
    accepted += massBefore + probs[pivot];
    start = w + 1;
    if (reaches(accepted)) return { count: start - lo, mass: accepted, reached: true };
  }
  return { count: start - lo, mass: accepted, reached: false };
}

/** The last id of order[0, n) in the ranking's order. */
function lastInOrder(r: Ranking, n: number): number {
  let last = r.order[0];
  for (let i = 1; i < n; i++) if (before(r, last, r.order[i])) last = r.order[i];
  return last;
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
