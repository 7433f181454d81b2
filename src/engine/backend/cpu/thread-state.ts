// What a thread needs to run forward(): views over the shared memory plus its own scratch.

import type { ModelConfig } from '../../model/model-config.ts';
import type { KvLayout } from '../backend.ts';
import { attention } from './attention.ts';
import { activationViews, kvViews, weightViews, type MemoryLayout } from './buffers.ts';
import type { ThreadState } from './cpu-forward.ts';
import { gelu } from './gelu.ts';
import { matmul } from './matmul.ts';
import { argmax, createSampleScratch } from './sample.ts';
import { wasmKernels } from './wasm/load-kernels.ts';
import type { WasmMemory } from './wasm/webassembly.ts';

export type KernelKind = 'wasm' | 'js';

/** What every thread is given: posted to each helper at start; a grow re-posts the layout. */
export interface SharedState {
  config: ModelConfig;
  kv: KvLayout;
  memory: WasmMemory;
  layout: MemoryLayout;
  ctl: SharedArrayBuffer;
  kernels: KernelKind;
  nThreads: number;
}

export function createThreadState(shared: SharedState, tid: number): ThreadState {
  const { config, kv, memory, layout } = shared;
  const buffer = memory.buffer;
  const wasmOps = shared.kernels === 'wasm' ? wasmKernels(memory) : undefined;
  const scratch = layout.scratch + tid * layout.scratchBytesPerThread;
  return {
    config,
    kv,
    weights: weightViews(config, buffer, layout),
    pool: kvViews(config, kv, buffer, layout),
    act: activationViews(config, buffer, layout),
    ctl: new Int32Array(shared.ctl),
    tid,
    nThreads: shared.nThreads,
    matmul: wasmOps?.matmul ?? matmul,
    gelu: wasmOps?.gelu ?? gelu,
    argmax: wasmOps?.argmax ?? argmax,
    attention: wasmOps?.attention ?? attention,
    scores: new Float32Array(buffer, scratch, config.nCtx),
    // The same scratch as scores: sampling runs after the last layer's attention.
    sample: createSampleScratch(config.vocabSize, wasmOps && { expRow: wasmOps.expRow, probs: new Float32Array(buffer, scratch, config.vocabSize) }),
  };
}
