// What a matmul does with each finished vec4 of outputs: the bias add, the GELU after the MLP's
// first projection, and the residual add after each block's output projection are fused into
// the matmul that produces them, which saves a dispatch and a pass over memory each. The QKV
// projection's epilogue also copies each token's K and V into the paged pool at the slot the
// engine mapped it to (a kernel of its own before, one dispatch a layer).

export type Epilogue = 'none' | 'bias' | 'bias-gelu' | 'bias-residual' | 'bias-kv';

/** Declarations the epilogue needs, from `binding` on: the bias; for 'bias-kv' also the slot mapping and the K and V pools. */
export function epilogueBindings(epilogue: Epilogue, binding: number): string {
  if (epilogue === 'none') return '';
  const bias = `@group(0) @binding(${binding}) var<storage, read> bias: array<vec4f>;`;
  if (epilogue !== 'bias-kv') return bias;
  return /* wgsl */ `${bias}
@group(0) @binding(${binding + 1}) var<storage, read> slotMapping: array<u32>;
@group(0) @binding(${binding + 2}) var<storage, read_write> kPool: array<vec4f>;
@group(0) @binding(${binding + 3}) var<storage, read_write> vPool: array<vec4f>;
const KV_C4 = N4 / 3u; // the model width in vec4s: the outputs are Q, K, V side by side`;
}

/** The bindings an epilogue adds to a matmul's layout, in order. */
export function epilogueBindingKinds(epilogue: Epilogue): Array<'read' | 'write'> {
  if (epilogue === 'none') return [];
  return epilogue === 'bias-kv' ? ['read', 'read', 'write', 'write'] : ['read'];
}

/** GPT-2's GELU (tanh form). tanh is written out, clamped, because some drivers' tanh returns NaN for large inputs. */
export const GELU = /* wgsl */ `
fn geluTanh(v: vec4f) -> vec4f {
  let u = clamp(0.7978845608028654 * (v + 0.044715 * v * v * v), vec4f(-15.0), vec4f(15.0));
  let e = exp(2.0 * u);
  return 0.5 * v * (1.0 + (e - 1.0) / (e + 1.0));
}
`;

/** WGSL statements storing `acc` (vec4, output column group `n` of row `row`) into y[o]. */
export function epilogueStore(epilogue: Epilogue, row: string): string {
  switch (epilogue) {
    case 'none':
      return 'y[o] = acc;';
    case 'bias':
      return 'y[o] = acc + bias[n];';
    case 'bias-gelu':
      return 'y[o] = geluTanh(acc + bias[n]);';
    case 'bias-residual':
      return 'y[o] = y[o] + acc + bias[n];';
    case 'bias-kv':
      return /* wgsl */ `let out = acc + bias[n];
      y[o] = out;
      if (n >= 2u * KV_C4) { vPool[slotMapping[${row}] * KV_C4 + n - 2u * KV_C4] = out; }
      else if (n >= KV_C4) { kPool[slotMapping[${row}] * KV_C4 + n - KV_C4] = out; }`;
  }
}
