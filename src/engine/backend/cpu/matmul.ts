// y[t, n] = b[n] + sum_k x[t, k] * w[n, k]  (or y += that, which fuses a residual add), for the
// output columns [n0, n1) this thread owns. w is packed [N, K] (see pack.ts), so each output is
// a dot product of two contiguous rows. Plain JS is not vectorised by V8: the speed comes from
// register blocking: a 4x4 block of outputs keeps 16 sums in registers and loads 8 values per
// 16 multiply-adds. Rows are tiled so a tile of x stays in L2 while the weights stream past.
// The SIMD kernel in wasm/kernels.wat does the same four lanes at a time and is what runs when
// it can; this one is the fallback (a width not divisible by 4, no WebAssembly SIMD).

const ROW_TILE = 64;

export type MatmulFn = typeof matmul;

export function matmul(
  x: Float32Array,
  w: Float32Array,
  b: Float32Array,
  y: Float32Array,
  rows: number,
  k: number,
  nTotal: number,
  n0: number,
  n1: number,
  accumulate: boolean,
): void {
  for (let t0 = 0; t0 < rows; t0 += ROW_TILE) {
    const tEnd = Math.min(rows, t0 + ROW_TILE);
    const t4End = t0 + ((tEnd - t0) & ~3);
    let n = n0;
    for (; n + 4 <= n1; n += 4) {
      let t = t0;
      for (; t < t4End; t += 4) block4x4(x, w, b, y, t, n, k, nTotal, accumulate);
      for (; t < tEnd; t++) block1x4(x, w, b, y, t, n, k, nTotal, accumulate);
    }
    for (; n < n1; n++) {
      for (let t = t0; t < tEnd; t++) block1x1(x, w, b, y, t, n, k, nTotal, accumulate);
    }
  }
}

function block4x4(x: Float32Array, w: Float32Array, b: Float32Array, y: Float32Array, t: number, n: number, k: number, nTotal: number, add: boolean): void {
  let x0 = t * k;
  let x1 = x0 + k;
  let x2 = x1 + k;
  let x3 = x2 + k;
  let w0 = n * k;
  let w1 = w0 + k;
  let w2 = w1 + k;
  let w3 = w2 + k;
  let c00 = 0, c01 = 0, c02 = 0, c03 = 0;
  let c10 = 0, c11 = 0, c12 = 0, c13 = 0;
  let c20 = 0, c21 = 0, c22 = 0, c23 = 0;
  let c30 = 0, c31 = 0, c32 = 0, c33 = 0;
  for (let i = 0; i < k; i++) {
    const b0 = w[w0++], b1 = w[w1++], b2 = w[w2++], b3 = w[w3++];
    let a = x[x0++];
    c00 += a * b0; c01 += a * b1; c02 += a * b2; c03 += a * b3;
    a = x[x1++];
    c10 += a * b0; c11 += a * b1; c12 += a * b2; c13 += a * b3;
    a = x[x2++];
    c20 += a * b0; c21 += a * b1; c22 += a * b2; c23 += a * b3;
    a = x[x3++];
    c30 += a * b0; c31 += a * b1; c32 += a * b2; c33 += a * b3;
  }
  const bias0 = b[n], bias1 = b[n + 1], bias2 = b[n + 2], bias3 = b[n + 3];
  let o = t * nTotal + n;
  y[o] = (add ? y[o] : 0) + c00 + bias0; y[o + 1] = (add ? y[o + 1] : 0) + c01 + bias1; y[o + 2] = (add ? y[o + 2] : 0) + c02 + bias2; y[o + 3] = (add ? y[o + 3] : 0) + c03 + bias3;
  o += nTotal;
  y[o] = (add ? y[o] : 0) + c10 + bias0; y[o + 1] = (add ? y[o + 1] : 0) + c11 + bias1; y[o + 2] = (add ? y[o + 2] : 0) + c12 + bias2; y[o + 3] = (add ? y[o + 3] : 0) + c13 + bias3;
  o += nTotal;
  y[o] = (add ? y[o] : 0) + c20 + bias0; y[o + 1] = (add ? y[o + 1] : 0) + c21 + bias1; y[o + 2] = (add ? y[o + 2] : 0) + c22 + bias2; y[o + 3] = (add ? y[o + 3] : 0) + c23 + bias3;
  o += nTotal;
  y[o] = (add ? y[o] : 0) + c30 + bias0; y[o + 1] = (add ? y[o + 1] : 0) + c31 + bias1; y[o + 2] = (add ? y[o + 2] : 0) + c32 + bias2; y[o + 3] = (add ? y[o + 3] : 0) + c33 + bias3;
}

function block1x4(x: Float32Array, w: Float32Array, b: Float32Array, y: Float32Array, t: number, n: number, k: number, nTotal: number, add: boolean): void {
  let x0 = t * k;
  let w0 = n * k;
  let w1 = w0 + k;
  let w2 = w1 + k;
  let w3 = w2 + k;
  let c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  for (let i = 0; i < k; i++) {
    const a = x[x0++];
    c0 += a * w[w0++]; c1 += a * w[w1++]; c2 += a * w[w2++]; c3 += a * w[w3++];
  }
  const o = t * nTotal + n;
  y[o] = (add ? y[o] : 0) + c0 + b[n];
  y[o + 1] = (add ? y[o + 1] : 0) + c1 + b[n + 1];
  y[o + 2] = (add ? y[o + 2] : 0) + c2 + b[n + 2];
  y[o + 3] = (add ? y[o + 3] : 0) + c3 + b[n + 3];
}

function block1x1(x: Float32Array, w: Float32Array, b: Float32Array, y: Float32Array, t: number, n: number, k: number, nTotal: number, add: boolean): void {
  let x0 = t * k;
  let w0 = n * k;
  let c0 = 0;
  for (let i = 0; i < k; i++) c0 += x[x0++] * w[w0++];
  const o = t * nTotal + n;
  y[o] = (add ? y[o] : 0) + c0 + b[n];
}
