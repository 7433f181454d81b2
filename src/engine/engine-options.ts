// Everything that configures an engine, its defaults, and the checks run before anything
// is allocated (the lab runner relies on them to refuse bad `--set` values early).
import type { ModelConfig } from './model/model-config.ts';
import { deviceNames, type DeviceSpec, type MeasuredCpu, THIS_CPU } from './backend/sim/gpus.ts';
import { type IntegerRange, resolveSchedulerOptions, type SchedulerOptions } from './core/scheduler-options.ts';

export interface DeviceOverrides {
  /** In (0, 1]. */
  efficiency?: number;
  /** >= 0 ms. */
  stepOverheadMs?: number;
}

/** What to run on: `auto` takes a hardware GPU when there is one and the cpu backend otherwise. */
export type BackendName = 'cpu' | 'webgpu' | 'auto' | 'sim';
export const backendNames: readonly BackendName[] = ['cpu', 'webgpu', 'auto', 'sim'];

export interface EngineOptions {
  /** A named config (default gpt2-tiny) or shapes of your own; ignored when weightsDir is given. */
  model?: string | ModelConfig;
  /** A Hugging Face GPT-2 folder (config.json + model.safetensors). */
  weightsDir?: string;
  /** Seed of the synthetic weights (default 0). */
  weightsSeed?: number;
  backend?: BackendName;
  /** webgpu: time every kernel (read back with engine.profile()); slows each step. */
  profile?: boolean;
  /** cpu: worker threads for the matmuls (default: all cores). */
  threads?: number;
  /** sim: the device modelled (default A100-40GB). */
  device?: string;
  /** sim with device this-cpu: this machine's measured figures. */
  measuredCpu?: MeasuredCpu;
  /** sim: a whole device given by the caller (a calibrated or published profile); wins over `device`. */
  deviceSpec?: DeviceSpec;
  /** Record every step's shape and times (engine.stats().steps): what calibration fits. */
  traceSteps?: boolean;
  /** sim: replaces the device's achieved fraction of peak and its fixed per-step cost. */
  deviceOverrides?: DeviceOverrides;
  /** KV pool size as a memory budget ... */
  kvMemoryBytes?: number;
  /** ... or as a number of blocks (wins over the budget). */
  numBlocks?: number;
  /** Tokens per KV block (default 16). */
  blockSize?: number;
  prefixCaching?: boolean;
  scheduler?: Partial<SchedulerOptions>;
  /** Seed of the per-request sampling seeds (default 0). */
  seed?: number;
}

export interface ResolvedEngineOptions {
  model: string | ModelConfig;
  weightsDir: string | undefined;
  weightsSeed: number;
  backend: BackendName;
  profile: boolean;
  threads: number | undefined;
  device: string;
  measuredCpu: MeasuredCpu | undefined;
  deviceSpec: DeviceSpec | undefined;
  traceSteps: boolean;
  deviceOverrides: DeviceOverrides;
  kvMemoryBytes: number | undefined;
  numBlocks: number | undefined;
  blockSize: number;
  prefixCaching: boolean;
  scheduler: SchedulerOptions;
  seed: number;
}

export const engineOptionRanges: Record<'blockSize' | 'numBlocks' | 'kvMemoryBytes' | 'threads', IntegerRange> = {
  blockSize: { min: 1, max: 1024 },
  numBlocks: { min: 1, max: 1 << 24 },
  kvMemoryBytes: { min: 1, max: 2 ** 40 },
  threads: { min: 1, max: 256 },
};

export const DEFAULT_MODEL = 'gpt2-tiny';
export const DEFAULT_DEVICE = 'A100-40GB';
export const DEFAULT_BLOCK_SIZE = 16;
/** The cpu and webgpu backends' default KV budget: room for many requests without crowding the host. */
export const DEFAULT_CPU_KV_BYTES = 512 * 1024 ** 2;
/** The sim's share of device memory for weights + KV (vLLM's gpu_memory_utilization default). */
export const SIM_MEMORY_UTILIZATION = 0.9;

/** Fills defaults and checks every field; throws a RangeError listing each problem. */
export function resolveEngineOptions(options: EngineOptions = {}): ResolvedEngineOptions {
  const problems: string[] = [];
  const backend = options.backend ?? 'cpu';
  if (!backendNames.includes(backend)) problems.push(`backend must be one of ${backendNames.join(', ')} (got ${String(backend)})`);
  const device = options.deviceSpec?.name ?? options.device ?? DEFAULT_DEVICE;
  if (backend === 'sim' && !options.deviceSpec && !deviceNames().includes(device)) {
    problems.push(`device must be one of ${deviceNames().join(', ')} (got ${device})`);
  }
  if (backend === 'sim' && !options.deviceSpec && device === THIS_CPU && !options.measuredCpu) {
    problems.push(`device ${THIS_CPU} needs measuredCpu (peak FLOP/s, bandwidth, memory, step overhead)`);
  }
  for (const [key, range] of Object.entries(engineOptionRanges)) {
    const value = options[key as keyof typeof engineOptionRanges];
    if (value !== undefined && (!Number.isInteger(value) || value < range.min || value > range.max)) {
      problems.push(`${key} must be an integer in [${range.min}, ${range.max}] (got ${value})`);
    }
  }
  const { efficiency, stepOverheadMs } = options.deviceOverrides ?? {};
  if (efficiency !== undefined && !(efficiency > 0 && efficiency <= 1)) problems.push(`deviceOverrides.efficiency must be in (0, 1] (got ${efficiency})`);
  if (stepOverheadMs !== undefined && !(stepOverheadMs >= 0 && Number.isFinite(stepOverheadMs))) {
    problems.push(`deviceOverrides.stepOverheadMs must be a number >= 0 (got ${stepOverheadMs})`);
  }
  if (options.profile !== undefined && typeof options.profile !== 'boolean') problems.push(`profile must be true or false (got ${String(options.profile)})`);
  for (const key of ['weightsSeed', 'seed'] as const) {
    const value = options[key];
    if (value !== undefined && !Number.isInteger(value)) problems.push(`${key} must be an integer (got ${value})`);
  }
  let scheduler: SchedulerOptions | undefined;
  try {
    scheduler = resolveSchedulerOptions(options.scheduler);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (problems.length > 0 || !scheduler) throw new RangeError(`engine options: ${problems.join('; ')}`);
  return {
    model: options.model ?? DEFAULT_MODEL,
    weightsDir: options.weightsDir,
    weightsSeed: options.weightsSeed ?? 0,
    backend,
    profile: options.profile ?? false,
    threads: options.threads,
    device,
    measuredCpu: options.measuredCpu,
    deviceSpec: options.deviceSpec,
    traceSteps: options.traceSteps ?? false,
    deviceOverrides: options.deviceOverrides ?? {},
    kvMemoryBytes: options.kvMemoryBytes,
    numBlocks: options.numBlocks,
    blockSize: options.blockSize ?? DEFAULT_BLOCK_SIZE,
    prefixCaching: options.prefixCaching ?? true,
    scheduler,
    seed: options.seed ?? 0,
  };
}

/** The pool's size, and the ceiling that cut it, when one did: maxNumSeqs sequences of nCtx tokens each. */
export interface PoolSize {
  blocks: number;
  capped: { sequences: number; tokens: number } | null;
}

/**
 * Blocks in the pool: numBlocks if given, else the budget over the bytes of one block, but
 * never more than every running sequence at full context needs (a larger pool only idles).
 */
export function poolSize(options: ResolvedEngineOptions, nCtx: number, kvBytesPerToken: number, defaultBudget: number): PoolSize {
  if (options.numBlocks !== undefined) return { blocks: options.numBlocks, capped: null };
  const bytesPerBlock = kvBytesPerToken * options.blockSize;
  const fromBudget = Math.floor((options.kvMemoryBytes ?? defaultBudget) / bytesPerBlock);
  const blocksPerSequence = Math.ceil(nCtx / options.blockSize);
  const ceiling = options.scheduler.maxNumSeqs * blocksPerSequence;
  const capped = options.kvMemoryBytes === undefined && ceiling < fromBudget;
  const blocks = capped ? ceiling : fromBudget;
  if (blocks < 1) {
    throw new RangeError(
      `engine options: a KV budget of ${options.kvMemoryBytes ?? defaultBudget} bytes holds no block of ${bytesPerBlock} bytes`,
    );
  }
  return { blocks, capped: capped ? { sequences: options.scheduler.maxNumSeqs, tokens: blocksPerSequence * options.blockSize } : null };
}

export function poolBlocks(options: ResolvedEngineOptions, nCtx: number, kvBytesPerToken: number, defaultBudget: number): number {
  return poolSize(options, nCtx, kvBytesPerToken, defaultBudget).blocks;
}
