// out[dstRow] = (x[srcRow] - mean) / sqrt(var + eps) * gamma + beta. Statistics in float64.

export function layerNormRow(
  x: Float32Array,
  srcRow: number,
  out: Float32Array,
  dstRow: number,
  gamma: Float32Array,
  beta: Float32Array,
  c: number,
  eps: number,
): void {
  const src = srcRow * c;
  const dst = dstRow * c;
  let sum = 0;
  for (let j = 0; j < c; j++) sum += x[src + j];
  const mean = sum / c;
  let squares = 0;
  for (let j = 0; j < c; j++) {
    const d = x[src + j] - mean;
    squares += d * d;
  }
  const inv = 1 / Math.sqrt(squares / c + eps);
  for (let j = 0; j < c; j++) out[dst + j] = (x[src + j] - mean) * inv * gamma[j] + beta[j];
}

export function layerNorm(
  x: Float32Array,
  out: Float32Array,
  gamma: Float32Array,
  beta: Float32Array,
  c: number,
  eps: number,
  t0: number,
  t1: number,
): void {
  for (let t = t0; t < t1; t++) layerNormRow(x, t, out, t, gamma, beta, c, eps);
}
