// Creates the backend `--backend cpu|webgpu|auto` names. `auto` takes a hardware GPU when Dawn
// offers one and the CPU backend otherwise: on a machine without a GPU, lavapipe runs the same
// kernels on the same cores as the CPU backend, so it is used only when asked for by name.

import type { ModelConfig } from '../model/model-config.ts';
import type { Weights } from '../model/weights.ts';
import { createCpuBackend } from './cpu/cpu-backend.ts';
import type { Backend, KvLayout } from './backend.ts';
import type { BackendKind } from './backend-kind.ts';
import { vulkanLoaderPresent } from './webgpu/vulkan-loader.ts';
import type { VariantChoice } from './webgpu/pipelines.ts';
import type { KernelProfile } from './webgpu/profile.ts';

export interface CreateBackendOptions {
  config: ModelConfig;
  weights: Weights;
  kv: KvLayout;
  /** cpu: threads in all (default: every core). */
  threads?: number;
  keepLogits?: boolean;
  /** webgpu: time every kernel (read it back with profileOf). */
  profile?: boolean;
  maxBatchTokens?: number;
  /** webgpu: the kernel variants (default: by adapter, software or hardware). */
  kernelVariants?: VariantChoice;
}

export interface CreatedBackend {
  backend: Backend;
  /** One line for reports: the backend, its device, and why auto chose it. */
  description: string;
}

export async function createBackend(kind: BackendKind, options: CreateBackendOptions): Promise<CreatedBackend> {
  if (kind === 'cpu') return cpu(options, '');
  if (kind === 'auto' && !vulkanLoaderPresent()) return cpu(options, ' (auto: no Vulkan loader, libvulkan.so.1, so no WebGPU adapter)');
  // Loaded only when asked for: the cpu path never touches Dawn.
  const webgpu = await import('./webgpu/webgpu-backend.ts');
  const { findAdapter, describeAdapter } = await import('./webgpu/device.ts');
  if (kind === 'auto') {
    const adapter = await findAdapter('hardware');
    if (!adapter) {
      const software = await findAdapter('any');
      const why = software ? `only a software adapter (${describeAdapter(software)}); pass --backend webgpu to use it` : 'no WebGPU adapter';
      return cpu(options, ` (auto: ${why})`);
    }
  }
  const backend = await webgpu.createWebGpuBackend({
    config: options.config,
    weights: options.weights,
    kv: options.kv,
    keepLogits: options.keepLogits,
    profile: options.profile,
    maxBatchTokens: options.maxBatchTokens,
    kernelVariants: options.kernelVariants,
    adapter: kind === 'auto' ? 'hardware' : 'any',
  });
  return { backend, description: `webgpu on ${backend.device}${kind === 'auto' ? ' (auto: hardware adapter)' : ''}` };
}

async function cpu(options: CreateBackendOptions, note: string): Promise<CreatedBackend> {
  const backend = await createCpuBackend({
    config: options.config,
    weights: options.weights,
    kv: options.kv,
    threads: options.threads,
    keepLogits: options.keepLogits,
    maxBatchTokens: options.maxBatchTokens,
  });
  return { backend, description: `cpu, ${backend.device}${note}` };
}

/** Per-kernel times of a webgpu backend created with profile; undefined for other backends. */
export function profileOf(backend: Backend): KernelProfile | undefined {
  const withProfile = backend as Backend & { profile?: () => KernelProfile | undefined };
  return typeof withProfile.profile === 'function' ? withProfile.profile() : undefined;
}
