// Stores each token's K and V (columns C..2C and 2C..3C of qkv) into the paged pool at its slot.
// Called by each thread right after its share of the QKV matmul, for the columns it computed,
// so the pool is complete at the barrier before attention.

export function writeKv(
  qkv: Float32Array,
  slotMapping: Int32Array,
  rows: number,
  c: number,
  kPool: Float32Array,
  vPool: Float32Array,
  layerBase: number,
  n0: number,
  n1: number,
): void {
  const kFrom = Math.max(n0, c);
  const kTo = Math.min(n1, 2 * c);
  const vFrom = Math.max(n0, 2 * c);
  const vTo = Math.min(n1, 3 * c);
  for (let t = 0; t < rows; t++) {
    const src = t * 3 * c;
    const dst = layerBase + slotMapping[t] * c;
    for (let j = kFrom; j < kTo; j++) kPool[dst + j - c] = qkv[src + j];
    for (let j = vFrom; j < vTo; j++) vPool[dst + j - 2 * c] = qkv[src + j];
  }
}
