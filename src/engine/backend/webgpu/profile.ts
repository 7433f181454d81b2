// --profile: time per kernel. With the adapter's timestamp queries every dispatch runs in a
// compute pass of its own whose start and end the GPU stamps (still one command buffer per
// step); without them each dispatch is submitted alone and timed on the CPU around its
// completion, which adds the submit round trip to every figure and says so in `source`.

import { BufferUsage, MapMode } from './device.ts';
import type { DispatchRecorder } from './webgpu-forward.ts';

export interface KernelTime {
  kernel: string;
  calls: number;
  totalMs: number;
  meanUs: number;
}

export interface KernelProfile {
  source: 'gpu-timestamps' | 'cpu-timing';
  steps: number;
  totalMs: number;
  /** Largest total first. */
  kernels: KernelTime[];
}

export class KernelProfiler {
  readonly source: KernelProfile['source'];
  private readonly totals = new Map<string, { calls: number; ns: number }>();
  private steps = 0;

  constructor(source: KernelProfile['source']) {
    this.source = source;
  }

  add(kernel: string, ns: number): void {
    const entry = this.totals.get(kernel) ?? { calls: 0, ns: 0 };
    entry.calls++;
    entry.ns += ns;
    this.totals.set(kernel, entry);
  }

  endStep(): void {
    this.steps++;
  }

  report(): KernelProfile {
    const kernels = [...this.totals].map(([kernel, t]) => ({ kernel, calls: t.calls, totalMs: t.ns / 1e6, meanUs: t.ns / 1e3 / t.calls }));
    kernels.sort((a, b) => b.totalMs - a.totalMs);
    return { source: this.source, steps: this.steps, totalMs: kernels.reduce((s, k) => s + k.totalMs, 0), kernels };
  }
}

/** Records each dispatch into its own timestamped pass; call finish() before submitting. */
export class TimestampRecorder implements DispatchRecorder {
  private readonly names: string[] = [];
  private readonly encoder: GPUCommandEncoder;
  private readonly querySet: GPUQuerySet;

  constructor(encoder: GPUCommandEncoder, querySet: GPUQuerySet) {
    this.encoder = encoder;
    this.querySet = querySet;
  }

  dispatch(kernel: string, pipeline: GPUComputePipeline, group: GPUBindGroup, x: number, y: number): void {
    const i = this.names.length;
    if (2 * i + 2 > this.querySet.count) throw new Error('webgpu backend: more dispatches in a step than the profiler has queries for');
    this.names.push(kernel);
    const pass = this.encoder.beginComputePass({ timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 } });
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    pass.dispatchWorkgroups(x, y);
    pass.end();
  }

  /** Resolves the stamps into `resolve` and copies them to `read` (both 8 bytes per query). */
  finish(resolve: GPUBuffer, read: GPUBuffer): string[] {
    const n = 2 * this.names.length;
    if (n > 0) {
      this.encoder.resolveQuerySet(this.querySet, 0, n, resolve, 0);
      this.encoder.copyBufferToBuffer(resolve, 0, read, 0, n * 8);
    }
    return this.names;
  }
}

/** Reads the stamps of a finished step into the profiler. */
export async function collectTimestamps(read: GPUBuffer, names: string[], profiler: KernelProfiler): Promise<void> {
  if (names.length === 0) return;
  await read.mapAsync(MapMode.READ, 0, names.length * 16);
  const stamps = new BigUint64Array(read.getMappedRange(0, names.length * 16).slice(0));
  read.unmap();
  names.forEach((name, i) => {
    const ns = Number(stamps[2 * i + 1] - stamps[2 * i]);
    profiler.add(name, ns > 0 ? ns : 0);
  });
}

export function timestampBuffers(device: GPUDevice, queries: number): { querySet: GPUQuerySet; resolve: GPUBuffer; read: GPUBuffer } {
  return {
    querySet: device.createQuerySet({ type: 'timestamp', count: queries }),
    resolve: device.createBuffer({ size: queries * 8, usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC }),
    read: device.createBuffer({ size: queries * 8, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST }),
  };
}

/** Collects dispatches so they can be submitted and timed one by one. */
export class ListRecorder implements DispatchRecorder {
  readonly list: { kernel: string; pipeline: GPUComputePipeline; group: GPUBindGroup; x: number; y: number }[] = [];

  dispatch(kernel: string, pipeline: GPUComputePipeline, group: GPUBindGroup, x: number, y: number): void {
    this.list.push({ kernel, pipeline, group, x, y });
  }
}

export async function runTimedOneByOne(device: GPUDevice, recorder: ListRecorder, profiler: KernelProfiler): Promise<void> {
  for (const d of recorder.list) {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(d.pipeline);
    pass.setBindGroup(0, d.group);
    pass.dispatchWorkgroups(d.x, d.y);
    pass.end();
    const start = process.hrtime.bigint();
    device.queue.submit([encoder.finish()]);
    await device.queue.onSubmittedWorkDone();
    profiler.add(d.kernel, Number(process.hrtime.bigint() - start));
  }
}
