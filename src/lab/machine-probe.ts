// What this machine gives, measured in the same run as a lab (a figure from another day, or
// from before other programs started, would not match the measured points): memory read
// bandwidth, and matmul FLOP/s with the engine's own kernel at a decode-like shape. Best of
// a few tries, so a busy moment does not decide the figure.
import type { MatmulFn } from '../engine/index.ts';

export interface MachineProbe {
  /** Bytes per second one thread reads (native memcmp over two buffers). */
  bandwidth: number;
  /** FLOP/s of the matmul kernel on one thread, times the threads the engine runs. */
  flops: number;
  threads: number;
}

export interface ProbeKernel {
  matmul: MatmulFn;
  /** Float32Arrays the kernel can address (wasm kernels need views of their memory). */
  alloc(length: number): Float32Array;
  threads: number;
}

function bestMs(tries: number, run: () => void): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < tries; i++) {
    const t0 = performance.now();
    run();
    best = Math.min(best, performance.now() - t0);
  }
  return Math.max(best, 1e-3);
}

export function probeBandwidth(bytes = 32 * 1024 * 1024): number {
  const a = Buffer.alloc(bytes, 7);
  const b = Buffer.alloc(bytes, 7);
  const ms = bestMs(4, () => {
    if (Buffer.compare(a, b) !== 0) throw new Error('probe buffers differ');
  });
  return (2 * bytes) / (ms / 1000);
}

/** rows x k times a [n, k] weight: the shape of a batch of decode tokens through a projection. */
export function probeFlops(kernel: ProbeKernel, rows = 16, k = 128, n = 2048): number {
  const x = kernel.alloc(rows * k).fill(0.5);
  const w = kernel.alloc(n * k).fill(0.25);
  const bias = kernel.alloc(n);
  const y = kernel.alloc(rows * n);
  const run = () => kernel.matmul(x, w, bias, y, rows, k, n, 0, n, false);
  run();
  const ms = bestMs(5, () => {
    for (let i = 0; i < 8; i++) run();
  });
  return ((8 * 2 * rows * k * n) / (ms / 1000)) * kernel.threads;
}

export function probeMachine(kernel: ProbeKernel): MachineProbe {
  return { bandwidth: probeBandwidth(), flops: probeFlops(kernel), threads: kernel.threads };
}
