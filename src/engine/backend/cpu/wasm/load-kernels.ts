// Instantiates the SIMD kernels over the backend's shared memory. A typed array's byteOffset
// into that memory is the pointer the kernel wants.

import { readFileSync } from 'node:fs';
import type { AttentionFn } from '../attention.ts';
import type { GeluFn } from '../gelu.ts';
import type { MatmulFn } from '../matmul.ts';
import type { ArgmaxFn, ExpRowFn } from '../sample.ts';
import { cachedKernelsPath, prepareKernels } from './assemble.ts';
import { wasm, type WasmMemory, type WasmModule } from './webassembly.ts';

let compiled: WasmModule | undefined;

/**
 * False where WebAssembly SIMD / relaxed SIMD is missing, or the kernels could not be
 * assembled: the backend then runs its JS kernels. Call before wasmKernels(); worker threads
 * then load the assembled module from the cache synchronously.
 */
export async function wasmKernelsSupported(): Promise<boolean> {
  try {
    if (!(await prepareKernels())) return false;
    kernelModule();
    return true;
  } catch {
    return false;
  }
}

function kernelModule(): WasmModule {
  if (!compiled) {
    const path = cachedKernelsPath();
    if (!path) throw new Error('the wasm kernels are not assembled yet: await wasmKernelsSupported() first');
    compiled = new wasm.Module(readFileSync(path));
  }
  return compiled;
}

/** Pointers are byte offsets; see kernels.wat for what each one computes. */
interface KernelExports {
  matmul(x: number, w: number, b: number, y: number, rows: number, k: number, nTotal: number, n0: number, n1: number, accumulate: number): void;
  gelu(y: number, rows: number, n: number, n0: number, n1: number): void;
  softmaxExp(scores: number, length: number): number;
  argmax(logits: number, n: number): number;
  expRow(logits: number, n: number, temperature: number, weights: number): void;
  attention(qkv: number, kPool: number, vPool: number, out: number, first: number, end: number, tokenSeq: number, positions: number, blockTables: number,
    maxBlocksPerSeq: number, blockSize: number, c: number, nHead: number, scores: number): void;
}

export interface WasmKernels {
  matmul: MatmulFn;
  gelu: GeluFn;
  attention: AttentionFn;
  softmaxExp: (scores: Float32Array, length: number) => number;
  argmax: ArgmaxFn;
  expRow: ExpRowFn;
}

/** The kernels with the signatures of their TS twins; every array must be a view of `memory`. */
export function wasmKernels(memory: WasmMemory): WasmKernels {
  const k = new wasm.Instance(kernelModule(), { env: { memory } }).exports as unknown as KernelExports;
  return {
    matmul(x, w, b, y, rows, kDim, nTotal, n0, n1, accumulate) {
      if (n1 > n0 && rows > 0) k.matmul(x.byteOffset, w.byteOffset, b.byteOffset, y.byteOffset, rows, kDim, nTotal, n0, n1, accumulate ? 1 : 0);
    },
    gelu(y, rows, n, n0, n1) {
      if (n1 > n0 && rows > 0) k.gelu(y.byteOffset, rows, n, n0, n1);
    },
    attention(qkv, kPool, vPool, layerBase, out, first, end, tokenSeq, positions, blockTables, maxBlocksPerSeq, blockSize, c, nHead, scores) {
      k.attention(qkv.byteOffset, kPool.byteOffset + 4 * layerBase, vPool.byteOffset + 4 * layerBase, out.byteOffset, first, end,
        tokenSeq.byteOffset, positions.byteOffset, blockTables.byteOffset, maxBlocksPerSeq, blockSize, c, nHead, scores.byteOffset);
    },
    softmaxExp: (scores, length) => k.softmaxExp(scores.byteOffset, length),
    argmax: (logits, offset, vocab) => k.argmax(logits.byteOffset + 4 * offset, vocab),
    expRow: (logits, offset, vocab, temperature, weights) => k.expRow(logits.byteOffset + 4 * offset, vocab, temperature, weights.byteOffset),
  };
}
