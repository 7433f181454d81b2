// GPT-2's GELU, the tanh approximation, in place over columns [n0, n1) of a [rows, n] matrix:
// the columns this thread's matmul just wrote, so no barrier is needed in between.

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

export type GeluFn = typeof gelu;

export function gelu(y: Float32Array, rows: number, n: number, n0: number, n1: number): void {
  for (let t = 0; t < rows; t++) {
    const end = t * n + n1;
    for (let i = t * n + n0; i < end; i++) {
      const v = y[i];
      // 0.5 v (1 + tanh u) = v / (1 + e^(-2u)): one exp is cheaper than Math.tanh.
      y[i] = v / (1 + Math.exp(-2 * SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)));
    }
  }
}
