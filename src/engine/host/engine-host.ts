// Where the step loop runs, seen from the client: the engine worker (real backends) or the
// main thread on a virtual clock (sim). Both take requests and hand back events.
import type { MessagePort } from 'node:worker_threads';
import type { Backend } from '../backend/backend.ts';
import type { KernelProfile } from '../backend/webgpu/profile.ts';
import type { Clock } from '../engine-clock.ts';
import type { EngineStats } from '../metrics/step-stats.ts';
import type { ModelConfig } from '../model/model-config.ts';
import type { EngineEvent, GenerateRequest } from '../core/request.ts';
import type { SchedulerOptions } from '../core/scheduler-options.ts';

export interface EngineInfo {
  model: ModelConfig;
  /** "synthetic weights (seed 0)", a safetensors path, or "no weights (sim: shapes only)". */
  weights: string;
  /** The backend chosen (`auto` resolves to cpu or webgpu). */
  backend: Backend['name'];
  device: string;
  /**
   * One line for reports: the backend, its adapter or CPU threads, and why `auto` chose it.
   * The sim host leaves it out; the engine client fills it in, so engine.info always has it.
   */
  description?: string;
  /** Whether the backend times its kernels (engine.profile()). */
  profiling?: boolean;
  clock: 'monotonic' | 'virtual';
  numBlocks: number;
  blockSize: number;
  kvBytesPerToken: number;
  prefixCaching: boolean;
  scheduler: SchedulerOptions;
  seed: number;
}

export interface EngineHost {
  readonly info: EngineInfo;
  readonly clock: Clock;
  /** Set by the engine: receives every batch of events, oldest first. */
  onEvents: (events: EngineEvent[]) => void;
  /** Set by the engine: the loop died; every open request must fail. */
  onFatal: (error: Error) => void;
  submit(id: number, request: GenerateRequest): void;
  abort(id: number): void;
  /** Resolves when the engine clock reaches `time` (the sim's clock jumps there). */
  sleepUntil(time: number): Promise<void>;
  stats(): Promise<EngineStats>;
  /** Per-kernel times so far; hosts whose backend cannot time kernels leave it out. */
  profile?(): Promise<KernelProfile | undefined>;
  clearPrefixCache(): Promise<void>;
  /** A port another thread passes to connectEngine to use this same engine; hosts on the caller's thread (the sim) leave it out. */
  connectPort?(): MessagePort;
  close(): Promise<void>;
}
