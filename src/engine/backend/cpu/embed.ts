// x[t] = wte[token] + wpe[position], for this thread's rows.

export function embed(
  wte: Float32Array,
  wpe: Float32Array,
  tokenIds: Int32Array,
  positions: Int32Array,
  x: Float32Array,
  c: number,
  t0: number,
  t1: number,
): void {
  for (let t = t0; t < t1; t++) {
    const tok = tokenIds[t] * c;
    const pos = positions[t] * c;
    const out = t * c;
    for (let j = 0; j < c; j++) x[out + j] = wte[tok + j] + wpe[pos + j];
  }
}
