// Values in ascending order, as Float64Array.prototype.sort orders them (-0 before +0, NaN
// last), for the percentiles and the mean. A sim run pools millions of values into one metric
// (ITL: every gap between two tokens, 63,000,000 of them at 1,000,000 requests) that take only
// a few dozen distinct values, since the virtual clock moves by whole modelled steps. Such
// values are counted rather than sorted: one pass over them instead of an O(n log n) sort of a
// copy. Either way the order statistics and the ascending-order sum are exactly those of the
// sorted array.

export interface SortedValues {
  readonly count: number;
  /** The value at `index` (0-based) in ascending order. */
  at(index: number): number;
  /** The sum taken in ascending order one value at a time: the same roundings as a loop over the sorted array. */
  sum(): number;
}

/** More distinct values than this and they are sorted instead: counting pays only while the table stays small. */
const MAX_DISTINCT = 4096;

export function sortValues(values: ArrayLike<number>): SortedValues {
  // One element type for the loops below (an array of numbers read in the same loop as a
  // typed array costs more per read); a copy of our own can be sorted in place.
  const own = !(values instanceof Float64Array);
  const array = own ? Float64Array.from(values) : values;
  return countDistinct(array) ?? sortedArray(own ? array.sort() : array.slice().sort());
}

function sortedArray(sorted: Float64Array): SortedValues {
  return {
    count: sorted.length,
    at: (index) => sorted[index],
    sum() {
      let sum = 0;
      for (let i = 0; i < sorted.length; i++) sum += sorted[i];
      return sum;
    },
  };
}

/** The values as (distinct value, how many) in ascending order; null past MAX_DISTINCT distinct values. */
function countDistinct(values: Float64Array): SortedValues | null {
  // An open-addressing table keyed on each value's 64 bits, so that -0 and +0 stay apart; at
  // most half full. A NaN sends the values to the sort (its bits need not survive a round trip).
  const size = MAX_DISTINCT * 2;
  const shift = 32 - Math.log2(size);
  const keyLo = new Uint32Array(size);
  const keyHi = new Uint32Array(size);
  const counts = new Float64Array(size); // 0: the slot is empty
  const scratch = new Float64Array(1);
  const bits = new Uint32Array(scratch.buffer);
  let distinct = 0;
  // Equal values tend to come in runs (the gaps of one request): the last one is tried first
  // (a zero goes to the table, where -0 and +0 are told apart by their bits).
  let last = Number.NaN;
  let lastSlot = -1;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === last && value !== 0) {
      counts[lastSlot]++;
      continue;
    }
    if (value !== value) return null;
    scratch[0] = value;
    const lo = bits[0];
    const hi = bits[1];
    let slot = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b) >>> shift;
    while (counts[slot] !== 0 && (keyLo[slot] !== lo || keyHi[slot] !== hi)) slot = (slot + 1) & (size - 1);
    if (counts[slot] === 0) {
      if (++distinct > MAX_DISTINCT) return null;
      keyLo[slot] = lo;
      keyHi[slot] = hi;
    }
    counts[slot]++;
    last = value;
    lastSlot = slot;
  }
  // The distinct values in the order a typed array sorts them, each found again in the table for its count.
  const order = new Float64Array(distinct);
  let k = 0;
  for (let slot = 0; slot < size; slot++) {
    if (counts[slot] === 0) continue;
    bits[0] = keyLo[slot];
    bits[1] = keyHi[slot];
    order[k++] = scratch[0];
  }
  order.sort();
  const ends = new Float64Array(distinct); // ends[j]: how many values are <= order[j] (cumulative counts)
  let total = 0;
  for (let j = 0; j < distinct; j++) {
    scratch[0] = order[j];
    let slot = Math.imul(bits[0] ^ Math.imul(bits[1], 0x9e3779b1), 0x85ebca6b) >>> shift;
    while (keyLo[slot] !== bits[0] || keyHi[slot] !== bits[1]) slot = (slot + 1) & (size - 1);
    total += counts[slot];
    ends[j] = total;
  }
  return {
    count: values.length,
    at(index) {
      // The first distinct value whose cumulative count passes index.
      let lo = 0;
      let hi = distinct - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (ends[mid] > index) hi = mid;
        else lo = mid + 1;
      }
      return order[lo];
    },
    sum() {
      let sum = 0;
      let start = 0;
      for (let j = 0; j < distinct; j++) {
        const value = order[j];
        for (let i = start; i < ends[j]; i++) sum += value;
        start = ends[j];
      }
      return sum;
    },
  };
}
