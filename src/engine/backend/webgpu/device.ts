// Finding a WebGPU adapter through Dawn's Node binding and opening a device on it.
// The object `create()` returns must stay reachable for as long as any device made from it is
// in use: when V8 collects it, Dawn crashes in InstanceBase::ProcessEvents. So there is one per
// process, held by this module for the process's lifetime (and by every GpuContext).

import { create } from 'webgpu';
import { INSTALL_HELP, webgpuUnavailable } from './vulkan-loader.ts';

/** The WebGPU usage flags, as numbers, so nothing has to be copied onto globalThis. */
export const BufferUsage = { MAP_READ: 0x1, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, STORAGE: 0x80, QUERY_RESOLVE: 0x200 } as const;
export const MapMode = { READ: 0x1 } as const;

export interface GpuContext {
  /** Dawn's GPU object: kept here only so it outlives the device. */
  readonly gpu: GPU;
  readonly adapter: GPUAdapter;
  readonly device: GPUDevice;
  /** One line for reports, e.g. "llvmpipe: Mesa 25.0.7 (software)". */
  readonly description: string;
  /** Mesa lavapipe and other CPU rasterisers: they want barrier-free kernels. */
  readonly software: boolean;
  readonly timestamps: boolean;
  /** The smallest subgroup size when the device has the 'subgroups' feature, else undefined. */
  readonly subgroupSize: number | undefined;
}

export type AdapterChoice = 'any' | 'hardware';

const NO_ADAPTER_HELP = `WebGPU found no adapter. ${INSTALL_HELP}`;

let dawn: GPU | undefined;

/** One Dawn instance per process, created on first use and never dropped. */
function dawnInstance(): GPU {
  dawn ??= create([]);
  return dawn;
}

export function describeAdapter(adapter: GPUAdapter): string {
  const info = adapter.info;
  const name = info.description || [info.vendor, info.architecture, info.device].filter(Boolean).join(' ') || 'unknown adapter';
  return isSoftwareAdapter(adapter) ? `${name} (software)` : name;
}

export function isSoftwareAdapter(adapter: GPUAdapter): boolean {
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const text = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`.toLowerCase();
  return info.isFallbackAdapter === true || /llvmpipe|lavapipe|swiftshader|software/.test(text);
}

/**
 * The adapter to run on: 'hardware' returns null when only a software adapter (or none) is
 * present, so `auto` can fall back to the CPU backend; 'any' accepts lavapipe too. An adapter
 * opens one device only, so each call asks Dawn afresh.
 */
export async function findAdapter(choice: AdapterChoice): Promise<GPUAdapter | null> {
  if (webgpuUnavailable() !== null) return null;
  let gpu: GPU;
  try {
    gpu = dawnInstance();
  } catch {
    return null;
  }
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) return null;
  if (choice === 'hardware' && isSoftwareAdapter(adapter)) return null;
  return adapter;
}

export async function openGpu(choice: AdapterChoice = 'any'): Promise<GpuContext> {
  const noDriver = webgpuUnavailable();
  if (noDriver !== null) throw new Error(noDriver);
  const gpu = dawnInstance();
  const chosen = await findAdapter(choice);
  if (!chosen) throw new Error(choice === 'hardware' ? `WebGPU found no hardware adapter. ${NO_ADAPTER_HELP}` : NO_ADAPTER_HELP);
  const timestamps = chosen.features.has('timestamp-query');
  const subgroups = chosen.features.has('subgroups');
  const limits = chosen.limits;
  // Ask for the adapter's own storage limits: the defaults (128 MiB bindings, 8 storage
  // buffers per stage) are lower than what most adapters offer.
  const device = await chosen.requestDevice({
    requiredFeatures: [...(timestamps ? ['timestamp-query' as const] : []), ...(subgroups ? ['subgroups' as GPUFeatureName] : [])],
    requiredLimits: {
      maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
      maxBufferSize: limits.maxBufferSize,
      maxStorageBuffersPerShaderStage: limits.maxStorageBuffersPerShaderStage,
      maxComputeWorkgroupStorageSize: limits.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: limits.maxComputeInvocationsPerWorkgroup,
      maxTextureDimension2D: limits.maxTextureDimension2D,
    },
  });
  const info = chosen.info as GPUAdapterInfo & { subgroupMinSize?: number };
  const subgroupSize = subgroups ? info.subgroupMinSize : undefined;
  return { gpu, adapter: chosen, device, description: describeAdapter(chosen), software: isSoftwareAdapter(chosen), timestamps, subgroupSize };
}

export const noAdapterHelp = NO_ADAPTER_HELP;
