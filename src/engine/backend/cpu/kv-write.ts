// Stores each token's K and V (columns C..2C and 2C..3C of qkv) into the paged pool at its slot.
// Called by each thread right after its share of the QKV matmul, for the columns it computed,
// so the pool is complete at the barrier before attention.
//
// Pool layout, per layer: block-major, then head-major inside a block: [block][head][slot in
// block][head dim]. A head's keys (or values) for one block are then blockSize * hd contiguous
// floats, so attention streams them instead of picking hd floats out of every C-wide row.

/** Index in the pool of (slot, head h, dim 0) for the layer starting at layerBase. */
export function kvIndex(layerBase: number, slot: number, h: number, c: number, hd: number, blockSize: number): number {
  const block = Math.floor(slot / blockSize);
  return layerBase + block * blockSize * c + h * blockSize * hd + (slot - block * blockSize) * hd;
}

export function writeKv(
  qkv: Float32Array,
  slotMapping: Int32Array,
  rows: number,
  c: number,
  nHead: number,
  blockSize: number,
  kPool: Float32Array,
  vPool: Float32Array,
  layerBase: number,
  n0: number,
  n1: number,
): void {
  const hd = c / nHead;
  for (let t = 0; t < rows; t++) {
    const src = t * 3 * c;
    copyColumns(qkv, src + c, kPool, layerBase, slotMapping[t], Math.max(n0, c) - c, Math.min(n1, 2 * c) - c, c, hd, blockSize);
    copyColumns(qkv, src + 2 * c, vPool, layerBase, slotMapping[t], Math.max(n0, 2 * c) - 2 * c, Math.min(n1, 3 * c) - 2 * c, c, hd, blockSize);
  }
}

/** Columns [from, to) of one token's K (or V) row, which starts at qkv[src], to its slot. */
function copyColumns(qkv: Float32Array, src: number, pool: Float32Array, layerBase: number, slot: number, from: number, to: number,
  c: number, hd: number, blockSize: number): void {
  for (let j = from; j < to; ) {
    const h = Math.floor(j / hd);
    const end = Math.min(to, (h + 1) * hd);
    const dst = kvIndex(layerBase, slot, h, c, hd, blockSize) - h * hd;
    for (; j < end; j++) pool[dst + j] = qkv[src + j];
  }
}
