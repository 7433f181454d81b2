// Runs one WGSL kernel on the test device: binds the given arrays in order (binding 0 is the
// StepParams uniform), dispatches, and returns every storage binding's contents afterwards.

import { BufferUsage, MapMode, openGpu, type GpuContext } from '../../src/engine/backend/webgpu/device.ts';
import { compileKernel } from '../../src/engine/backend/webgpu/pipelines.ts';

export type Data = Float32Array | Int32Array | Uint32Array;

export interface KernelRun {
  code: string;
  step: { tokens: number; seqs?: number; rows?: number; maxBlocks?: number };
  /** Bindings 1..n: a storage buffer (written by the kernel when `write`), or a read-only rgba32float storage texture of `texture` texels per row. */
  bindings: { data: Data; write?: boolean; texture?: { width: number } }[];
  grid: [number, number?];
}

let context: GpuContext | undefined;

export async function testGpu(): Promise<GpuContext> {
  context ??= await openGpu('any');
  return context;
}

export async function runKernel(run: KernelRun): Promise<Float32Array[]> {
  const { device } = await testGpu();
  const entries: GPUBindGroupLayoutEntry[] = [{ binding: 0, visibility: 0x4, buffer: { type: 'uniform' } }];
  run.bindings.forEach((b, i) =>
    entries.push(b.texture ? { binding: i + 1, visibility: 0x4, storageTexture: { access: 'read-only', format: 'rgba32float' } } : { binding: i + 1, visibility: 0x4, buffer: { type: b.write ? 'storage' : 'read-only-storage' } }),
  );
  const layout = device.createBindGroupLayout({ entries });
  const pipeline = await compileKernel(device, 'test kernel', run.code, layout);
  const s = run.step;
  const stepBuffer = device.createBuffer({ size: 16, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
  device.queue.writeBuffer(stepBuffer, 0, new Uint32Array([s.tokens, s.seqs ?? 0, s.rows ?? 0, s.maxBlocks ?? 0]));
  const resources: GPUBindingResource[] = run.bindings.map((b) => {
    if (!b.texture) return { buffer: storageBuffer(b.data) };
    const height = b.data.length / 4 / b.texture.width;
    const texture = device.createTexture({ size: [b.texture.width, height], format: 'rgba32float', usage: 0x2 | 0x8 }); // COPY_DST | STORAGE_BINDING
    device.queue.writeTexture({ texture }, b.data.buffer, { offset: b.data.byteOffset, bytesPerRow: b.texture.width * 16, rowsPerImage: height }, [b.texture.width, height]);
    return texture.createView();
  });
  function storageBuffer(data: Data): GPUBuffer {
    const buffer = device.createBuffer({ size: Math.max(16, Math.ceil(data.byteLength / 16) * 16), usage: BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC });
    device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    return buffer;
  }
  const group = device.createBindGroup({ layout, entries: [{ buffer: stepBuffer }, ...resources].map((resource, binding) => ({ binding, resource })) });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.dispatchWorkgroups(run.grid[0], run.grid[1] ?? 1);
  pass.end();
  // Textures come back as empty arrays: no kernel writes one.
  const reads = resources.map((resource) => {
    if (!('buffer' in resource)) return undefined;
    const buffer = resource.buffer;
    const read = device.createBuffer({ size: buffer.size, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST });
    encoder.copyBufferToBuffer(buffer, 0, read, 0, buffer.size);
    return read;
  });
  device.queue.submit([encoder.finish()]);
  return Promise.all(
    reads.map(async (read, i) => {
      if (!read) return new Float32Array(0);
      await read.mapAsync(MapMode.READ);
      const out = new Float32Array(read.getMappedRange().slice(0, run.bindings[i].data.byteLength));
      read.unmap();
      return out;
    }),
  );
}

/** Deterministic uniform values in [lo, hi). */
export function randomArray(n: number, seed: number, lo = -1, hi = 1): Float32Array {
  let state = seed >>> 0 || 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = lo + ((state >>> 0) / 4294967296) * (hi - lo);
  }
  return out;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}
