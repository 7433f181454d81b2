// The WebGPU backend: the CPU backend's forward pass as WGSL kernels through Dawn. Weights and
// the KV pool live on the device from start to close; a step uploads the batch (a few small
// writes), records every dispatch of the forward pass into one command buffer, and reads back
// only the sampled token ids (plus the logits when keepLogits). A shader that fails to compile
// fails createWebGpuBackend; a validation error or a lost device fails the step with an error.

import { validateConfig, type ModelConfig } from '../../model/model-config.ts';
import type { Weights } from '../../model/weights.ts';
import { validateBatch } from '../cpu/validate-batch.ts';
import { grownCapacity, initialCapacity } from '../capacity.ts';
import type { Backend, ForwardBatch, KvLayout, StepResult } from '../backend.ts';
import { buildBindGroups, type BindGroups } from './bind-groups.ts';
import { MapMode, openGpu, type AdapterChoice, type GpuContext } from './device.ts';
import { encodeForward, type DispatchRecorder } from './webgpu-forward.ts';
import { allocateActivations, allocateKvPool, logitsStride, type Activations } from './gpu-buffers.ts';
import { texturesFit, uploadWeights } from './gpu-weights.ts';
import { buildPipelines, variantsFor, type KernelVariants, type VariantChoice } from './pipelines.ts';
import { collectTimestamps, KernelProfiler, ListRecorder, runTimedOneByOne, TimestampRecorder, timestampBuffers, type KernelProfile } from './profile.ts';
import { warmUp } from './warm-up.ts';

export interface WebGpuBackendOptions {
  config: ModelConfig;
  weights: Weights;
  kv: KvLayout;
  /** Return the logits of each sampled row (tests). */
  keepLogits?: boolean;
  /** Time every kernel (slower: see profile.ts). */
  profile?: boolean;
  /** 'hardware' refuses software adapters; default 'any': lavapipe too. */
  adapter?: AdapterChoice;
  /** Tokens per step the activation buffers start sized for; a bigger step grows them. */
  maxBatchTokens?: number;
  /**
   * Kernel variants: by default 'software' on lavapipe (barrier-free; texture weights and
   * subgroup matmuls where the device has subgroups, else 'software-buffers') and 'hardware'
   * on a GPU; tests run each, or set every field.
   */
  kernelVariants?: VariantChoice | KernelVariants;
  /** Largest token-table chunk in bytes (default: what one binding or texture of the adapter holds); tests force the split with it. */
  tokenTableChunkBytes?: number;
}

export interface WebGpuBackend extends Backend {
  readonly name: 'webgpu';
  /** Software adapters (lavapipe) get the barrier-free kernel variants. */
  readonly software: boolean;
  /** The kernel variants this backend runs. */
  readonly variants: KernelVariants;
  /** Per-kernel times so far, when created with profile. */
  profile(): KernelProfile | undefined;
}

export async function createWebGpuBackend(options: WebGpuBackendOptions): Promise<WebGpuBackend> {
  const config = validateConfig({ ...options.config });
  const kv = { numBlocks: options.kv.numBlocks, blockSize: options.kv.blockSize };
  if (!Number.isInteger(kv.numBlocks) || kv.numBlocks < 1 || !Number.isInteger(kv.blockSize) || kv.blockSize < 1) {
    throw new Error(`webgpu backend: numBlocks and blockSize must be positive integers, got ${kv.numBlocks} and ${kv.blockSize}`);
  }
  if (config.nEmbd % 4 !== 0 || (config.nEmbd / config.nHead) % 4 !== 0) {
    throw new Error(`webgpu backend: the vec4 kernels need nEmbd and the head size to be multiples of 4 (model "${config.name}": ${config.nEmbd}, ${config.nEmbd / config.nHead})`);
  }
  const keepLogits = options.keepLogits ?? false;
  const ctx: GpuContext = await openGpu(options.adapter);
  const { device } = ctx;
  let failure: string | undefined;
  let destroyed = false;
  const lost = device.lost.then((info) => {
    if (!destroyed) failure ??= `the GPU device was lost (${info.reason}): ${info.message}`;
    return info;
  });
  device.onuncapturederror = (event: GPUUncapturedErrorEvent): void => {
    failure ??= `GPU error: ${event.error.message}`;
  };

  try {
    const choice = options.kernelVariants ?? (ctx.software ? 'software' : 'hardware');
    const variants = typeof choice === 'object' ? choice : variantsFor(choice, ctx.subgroupSize, texturesFit(config, device.limits.maxTextureDimension2D));
    const weights = uploadWeights(device, config, options.weights, variants.weights, options.tokenTableChunkBytes);
    const pool = allocateKvPool(device, config, kv);
    const pipelines = await buildPipelines(device, config, kv, weights.wteChunks, variants);
    let acts: Activations = allocateActivations(device, config, initialCapacity(config, kv, options.maxBatchTokens ?? 512), keepLogits);
    let groups: BindGroups = buildBindGroups(device, pipelines, weights, acts, pool);
    await warmUp(device, pipelines, groups, acts.step);

    const dispatchesPerStep = 2 * weights.wteChunks.length + 8 * config.nLayer + 3;
    const stamps = options.profile && ctx.timestamps ? timestampBuffers(device, 2 * dispatchesPerStep) : undefined;
    const profiler = options.profile ? new KernelProfiler(stamps ? 'gpu-timestamps' : 'cpu-timing') : undefined;

    const ensureCapacity = (batch: ForwardBatch): void => {
      const grown = grownCapacity(acts.capacity, batch);
      if (!grown) return;
      for (const buffer of acts.all) buffer.destroy();
      acts = allocateActivations(device, config, grown, keepLogits);
      groups = buildBindGroups(device, pipelines, weights, acts, pool);
    };

    /** Settles with the work, or rejects as soon as the device is lost: a step never hangs on a dead device. */
    const guarded = <T>(work: Promise<T>): Promise<T> =>
      Promise.race([work, lost.then((info) => Promise.reject(new Error(`webgpu backend: ${failure ?? `device lost (${info.reason})`}`)))]);

    let closed = false;
    let busy = false;
    const runStep = async (batch: ForwardBatch): Promise<StepResult> => {
      try {
        validateBatch(batch, config, kv);
      } catch (error) {
        throw new Error((error as Error).message.replace(/^cpu backend/, 'webgpu backend'));
      }
      ensureCapacity(batch);
      const tokens = batch.tokenIds.length;
      const rows = batch.sampleSeqs.length;
      uploadBatch(device.queue, acts, batch);

      device.pushErrorScope('validation');
      const encoder = device.createCommandEncoder({ label: 'engine step' });
      let timedNames: string[] | undefined;
      let oneByOne: ListRecorder | undefined;
      if (stamps) {
        const rec = new TimestampRecorder(encoder, stamps.querySet);
        encodeForward(rec, config, pipelines, groups, { tokens, rows });
        timedNames = rec.finish(stamps.resolve, stamps.read);
      } else if (profiler) {
        oneByOne = new ListRecorder();
        encodeForward(oneByOne, config, pipelines, groups, { tokens, rows });
      } else {
        const pass = encoder.beginComputePass({ label: 'forward' });
        const rec: DispatchRecorder = {
          dispatch(_kernel, pipeline, group, x, y) {
            pass.setPipeline(pipeline);
            pass.setBindGroup(0, group);
            pass.dispatchWorkgroups(x, y);
          },
        };
        encodeForward(rec, config, pipelines, groups, { tokens, rows });
        pass.end();
      }
      if (oneByOne) await guarded(runTimedOneByOne(device, oneByOne, profiler!));
      const vocab = config.vocabSize;
      const ld = logitsStride(config);
      if (rows > 0) {
        encoder.copyBufferToBuffer(acts.sampled, 0, acts.sampledRead, 0, rows * 4);
        if (keepLogits) encoder.copyBufferToBuffer(acts.logits, 0, acts.logitsRead!, 0, rows * ld * 4);
      }
      device.queue.submit([encoder.finish()]);
      const validation = device.popErrorScope();

      const reads: Promise<unknown>[] = [validation, device.queue.onSubmittedWorkDone()];
      if (rows > 0) reads.push(acts.sampledRead.mapAsync(MapMode.READ, 0, rows * 4));
      if (rows > 0 && keepLogits) reads.push(acts.logitsRead!.mapAsync(MapMode.READ, 0, rows * ld * 4));
      const [error] = (await guarded(Promise.all(reads))) as [GPUError | null];
      if (error) {
        if (rows > 0) acts.sampledRead.unmap();
        if (rows > 0 && keepLogits) acts.logitsRead!.unmap();
        throw new Error(`webgpu backend: GPU validation error: ${error.message}`);
      }
      if (failure) throw new Error(`webgpu backend: ${failure}`);
      const result: StepResult = { tokens: new Int32Array(rows) };
      if (rows > 0) {
        result.tokens.set(new Int32Array(acts.sampledRead.getMappedRange(0, rows * 4)));
        acts.sampledRead.unmap();
      }
      if (keepLogits) {
        const logits = new Float32Array(rows * vocab);
        if (rows > 0) {
          const padded = new Float32Array(acts.logitsRead!.getMappedRange(0, rows * ld * 4));
          for (let r = 0; r < rows; r++) logits.set(padded.subarray(r * ld, r * ld + vocab), r * vocab);
          acts.logitsRead!.unmap();
        }
        result.logits = logits;
      }
      if (timedNames) await guarded(collectTimestamps(stamps!.read, timedNames, profiler!));
      profiler?.endStep();
      return result;
    };

    return {
      name: 'webgpu',
      device: ctx.description,
      software: ctx.software,
      variants,
      config,
      kv,
      async step(batch: ForwardBatch): Promise<StepResult> {
        if (closed) throw new Error('webgpu backend: step() after close()');
        if (failure) throw new Error(`webgpu backend: ${failure}`);
        if (busy) throw new Error('webgpu backend: step() called while the previous step is still running');
        busy = true;
        try {
          return await runStep(batch);
        } finally {
          busy = false;
        }
      },
      profile: () => profiler?.report(),
      async close(): Promise<void> {
        if (closed) return;
        closed = true;
        destroyed = true;
        device.destroy();
        // Let Dawn deliver the device-lost callback before the engine worker is terminated: a
        // callback into a terminating thread aborts the process (napi_throw). Bounded, never a hang.
        await Promise.race([lost, new Promise((resolve) => setTimeout(resolve, 200))]);
      },
    };
  } catch (error) {
    destroyed = true;
    device.destroy();
    throw error;
  }
}

function uploadBatch(queue: GPUQueue, a: Activations, batch: ForwardBatch): void {
  const seqs = batch.queryStart.length - 1;
  const rows = batch.sampleSeqs.length;
  const tokens = batch.tokenIds.length;
  queue.writeBuffer(a.step, 0, new Uint32Array([tokens, seqs, rows, batch.maxBlocksPerSeq]));
  const tokenSeq = new Int32Array(tokens);
  for (let s = 0; s < seqs; s++) tokenSeq.fill(s, batch.queryStart[s], batch.queryStart[s + 1]);
  const write = (buffer: GPUBuffer, data: Int32Array | Float32Array): void => {
    if (data.length > 0) queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
  };
  write(a.tokenIds, batch.tokenIds);
  write(a.positions, batch.positions);
  write(a.slotMapping, batch.slotMapping);
  write(a.tokenSeq, tokenSeq);
  write(a.queryStart, batch.queryStart);
  write(a.blockTables, batch.blockTables.subarray(0, seqs * batch.maxBlocksPerSeq));
  write(a.sampleSeqs, batch.sampleSeqs);
  const params = new Float32Array(rows * 4);
  for (let r = 0; r < rows; r++) {
    params[4 * r] = batch.temperature[r];
    params[4 * r + 1] = batch.topK[r];
    params[4 * r + 2] = batch.topP[r];
    params[4 * r + 3] = batch.uniform[r];
  }
  write(a.rowParams, params);
}
