// What a matmul does with each finished vec4 of outputs: the bias add, the GELU after the MLP's
// first projection, and the residual add after each block's output projection are fused into
// the matmul that produces them, which saves a dispatch and a pass over memory each.

export type Epilogue = 'none' | 'bias' | 'bias-gelu' | 'bias-residual';

/** Declarations the epilogue needs; bias at `binding`. */
export function epilogueBindings(epilogue: Epilogue, binding: number): string {
  return epilogue === 'none' ? '' : `@group(0) @binding(${binding}) var<storage, read> bias: array<vec4f>;`;
}

/** GPT-2's GELU (tanh form). tanh is written out, clamped, because some drivers' tanh returns NaN for large inputs. */
export const GELU = /* wgsl */ `
fn geluTanh(v: vec4f) -> vec4f {
  let u = clamp(0.7978845608028654 * (v + 0.044715 * v * v * v), vec4f(-15.0), vec4f(15.0));
  let e = exp(2.0 * u);
  return 0.5 * v * (1.0 + (e - 1.0) / (e + 1.0));
}
`;

/** A WGSL statement storing `acc` (vec4, output column group `n`) into y[o]. */
export function epilogueStore(epilogue: Epilogue): string {
  switch (epilogue) {
    case 'none':
      return 'y[o] = acc;';
    case 'bias':
      return 'y[o] = acc + bias[n];';
    case 'bias-gelu':
      return 'y[o] = geluTanh(acc + bias[n]);';
    case 'bias-residual':
      return 'y[o] = y[o] + acc + bias[n];';
  }
}
