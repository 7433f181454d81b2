// The CPU backend: fp32 GPT-2 over one shared WebAssembly memory. The matmuls, attention's
// inner loops, GELU and softmax run as WebAssembly SIMD kernels (wasm/kernels.wat); the rest is
// TypeScript, and plain-TS kernels stand in where SIMD cannot (kernels: 'js').
// The calling thread computes a share of every op itself and (threads - 1) helper workers do
// the rest, so `threads` busy threads in all: on two cores a third spinning thread would halve
// the speed. step() runs the forward pass synchronously on the calling thread; an engine that
// must keep its event loop responsive calls it from a worker of its own.
// Every row is computed the same way whatever else is in the batch, so results are
// batch-invariant to the bit: a sequence's greedy tokens do not depend on its batch mates.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { validateConfig, type ModelConfig } from '../../model/model-config.ts';
import type { Weights } from '../../model/weights.ts';
import type { Backend, ForwardBatch, KvLayout, StepResult } from '../backend.ts';
import { grownCapacity, initialCapacity } from '../capacity.ts';
import { planLayout, weightViews, withActivations, type MemoryLayout } from './buffers.ts';
import { forward, workCounters, type ThreadState } from './cpu-forward.ts';
import { packWeights } from './pack.ts';
import { barrier, CMD, createControl, CTL, markFailed, postCommand, resetWork } from './thread-sync.ts';
import { createThreadState, type KernelKind, type SharedState } from './thread-state.ts';
import { validateBatch } from './validate-batch.ts';
import { wasmKernelsSupported } from './wasm/load-kernels.ts';
import { wasm } from './wasm/webassembly.ts';
import type { WorkerInit } from './worker.ts';
import { threadEntry } from '../../thread-entry.ts';

export interface CpuBackendOptions {
  config: ModelConfig;
  weights: Weights;
  kv: KvLayout;
  /** Threads in all, the caller included; default: every core. */
  threads?: number;
  /** Return the logits of each sampled row (tests). */
  keepLogits?: boolean;
  /** Tokens per step the activation buffers start sized for; a bigger step grows them. */
  maxBatchTokens?: number;
  /** 'wasm' (SIMD, the default where supported) or 'js' (plain TypeScript kernels). */
  kernels?: KernelKind;
}

const PAGE = 65536;
const MAX_PAGES = 65536; // 4 GiB: the most a 32-bit WebAssembly memory can address

/** Bytes of K and V one token occupies in the pool: size the pool as budget / this / blockSize. */
export function kvBytesPerToken(config: ModelConfig): number {
  return 2 * config.nLayer * config.nEmbd * Float32Array.BYTES_PER_ELEMENT;
}

export async function createCpuBackend(options: CpuBackendOptions): Promise<Backend> {
  const config = validateConfig({ ...options.config });
  const kv = { numBlocks: options.kv.numBlocks, blockSize: options.kv.blockSize };
  if (!Number.isInteger(kv.numBlocks) || kv.numBlocks < 1 || !Number.isInteger(kv.blockSize) || kv.blockSize < 1) {
    throw new Error(`cpu backend: numBlocks and blockSize must be positive integers, got ${kv.numBlocks} and ${kv.blockSize}`);
  }
  const nThreads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
  const keepLogits = options.keepLogits ?? false;
  // The SIMD kernels step through rows and heads four floats at a time.
  const fitsSimd = (config.nEmbd / config.nHead) % 4 === 0;
  const simdReady = options.kernels === 'js' ? false : fitsSimd && (await wasmKernelsSupported());
  const kernels: KernelKind = options.kernels ?? (simdReady ? 'wasm' : 'js');
  if (kernels === 'wasm' && !fitsSimd) throw new Error(`cpu backend: the wasm kernels need a head size divisible by 4 (got ${config.nEmbd / config.nHead})`);
  if (kernels === 'wasm' && !simdReady) throw new Error('cpu backend: WebAssembly SIMD kernels are not available here (use kernels: js)');

  const layout = planLayout(config, kv, initialCapacity(config, kv, options.maxBatchTokens ?? 512), nThreads);
  const memory = new wasm.Memory({ initial: pagesFor(layout.end, config, kv), maximum: MAX_PAGES, shared: true });
  const shared: SharedState = { config, kv, memory, layout, ctl: createControl(workCounters(config)).buffer as SharedArrayBuffer, kernels, nThreads };
  packWeights(config, options.weights, weightViews(config, memory.buffer, layout));
  let state: ThreadState = createThreadState(shared, 0);
  const ctl = state.ctl;
  const started = await Promise.allSettled(Array.from({ length: nThreads - 1 }, (_, i) => startWorker({ shared, tid: i + 1 })));
  const workers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const startFailure = started.find((s) => s.status === 'rejected');
  if (startFailure) {
    postCommand(ctl, CMD.EXIT); // release the helpers that did start
    throw startFailure.reason;
  }

  const ensureCapacity = (batch: ForwardBatch): void => {
    const capacity = grownCapacity(shared.layout.capacity, batch);
    if (!capacity) return;
    // The old activations stay where they are (shared memory never shrinks); the new ones go after.
    const layout: MemoryLayout = withActivations(config, shared.layout, memory.buffer.byteLength, capacity);
    memory.grow(pagesFor(layout.end, config, kv) - memory.buffer.byteLength / PAGE);
    shared.layout = layout;
    state = createThreadState(shared, 0);
    if (workers.length > 0) {
      for (const worker of workers) worker.postMessage(layout);
      postCommand(ctl, CMD.RELOAD);
      barrier(ctl, nThreads);
    }
  };

  let closed = false;
  let helperFailure: Error | undefined;
  const exited = workers.map((worker) => {
    worker.on('error', (error: Error) => (helperFailure ??= error));
    return new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  });
  return {
    name: 'cpu',
    device: `${nThreads} thread${nThreads === 1 ? '' : 's'}, ${process.arch}, ${kernels === 'wasm' ? 'WebAssembly SIMD' : 'JS'} kernels`,
    config,
    kv,
    async step(batch: ForwardBatch): Promise<StepResult> {
      if (closed) throw new Error('cpu backend: step() after close()');
      if (helperFailure || Atomics.load(ctl, CTL.FAILED)) {
        throw new Error(`cpu backend: a helper thread failed${helperFailure ? `: ${helperFailure.message}` : ''}`);
      }
      validateBatch(batch, config, kv);
      ensureCapacity(batch);
      loadBatch(state, batch);
      try {
        if (workers.length > 0) postCommand(ctl, CMD.FORWARD);
        forward(state);
      } catch (error) {
        markFailed(ctl); // the helpers leave their barriers; this backend is done
        throw error;
      }
      const rows = batch.sampleSeqs.length;
      const result: StepResult = { tokens: state.act.sampled.slice(0, rows) };
      if (keepLogits) result.logits = state.act.logits.slice(0, rows * config.vocabSize);
      return result;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (workers.length === 0) return;
      for (const worker of workers) worker.ref(); // keep the event loop alive until the helpers are gone
      postCommand(ctl, CMD.EXIT);
      await Promise.all(exited);
    },
  };
}

function pagesFor(bytes: number, config: ModelConfig, kv: KvLayout): number {
  const pages = Math.ceil(bytes / PAGE);
  if (pages > MAX_PAGES) {
    const gib = (n: number): string => (n / 2 ** 30).toFixed(2);
    throw new Error(
      `cpu backend: ${config.name} with a KV pool of ${kv.numBlocks} x ${kv.blockSize} tokens needs ${gib(bytes)} GiB of shared memory; ` +
        `the limit is ${gib(MAX_PAGES * PAGE)} GiB: lower the KV memory budget`,
    );
  }
  return pages;
}

function loadBatch(state: ThreadState, batch: ForwardBatch): void {
  const { act, ctl } = state;
  const seqs = batch.queryStart.length - 1;
  act.tokenIds.set(batch.tokenIds);
  act.positions.set(batch.positions);
  act.slotMapping.set(batch.slotMapping);
  act.queryStart.set(batch.queryStart);
  act.contextLens.set(batch.contextLens);
  act.blockTables.set(batch.blockTables.subarray(0, seqs * batch.maxBlocksPerSeq));
  act.sampleSeqs.set(batch.sampleSeqs);
  act.temperature.set(batch.temperature);
  act.topK.set(batch.topK);
  act.topP.set(batch.topP);
  act.uniform.set(batch.uniform);
  for (let s = 0; s < seqs; s++) act.tokenSeq.fill(s, batch.queryStart[s], batch.queryStart[s + 1]);
  ctl[CTL.TOKENS] = batch.tokenIds.length;
  ctl[CTL.SEQS] = seqs;
  ctl[CTL.ROWS] = batch.sampleSeqs.length;
  ctl[CTL.MAX_BLOCKS_PER_SEQ] = batch.maxBlocksPerSeq;
  resetWork(ctl);
}

function startWorker(init: WorkerInit): Promise<Worker> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(threadEntry('cpu-worker', new URL('./worker-entry.js', import.meta.url)), { workerData: init });
    const onExit = (code: number): void => reject(new Error(`cpu backend: helper thread ${init.tid} exited (code ${code}) before it was ready`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', () => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      // A helper must not keep the process alive when an engine forgets close().
      worker.unref();
      resolve(worker);
    });
  });
}
