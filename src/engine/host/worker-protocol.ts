// Messages between the main thread and the engine worker.
import type { KernelProfile } from '../backend/webgpu/profile.ts';
import type { EngineStats } from '../metrics/step-stats.ts';
import type { EngineInfo } from './engine-host.ts';
import type { ResolvedEngineOptions } from '../engine-options.ts';
import type { ModelConfig } from '../model/model-config.ts';
import type { EngineEvent, GenerateRequest } from '../core/request.ts';

export interface WorkerData {
  options: ResolvedEngineOptions;
  /** The model's shapes, already resolved and checked on the main thread. */
  config: ModelConfig;
}

export type ToWorker =
  | { type: 'submit'; id: number; request: GenerateRequest }
  | { type: 'abort'; id: number }
  | { type: 'stats'; replyTo: number }
  | { type: 'profile'; replyTo: number }
  | { type: 'clear-prefix-cache'; replyTo: number }
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready'; info: EngineInfo }
  | { type: 'events'; events: EngineEvent[] }
  | { type: 'reply'; replyTo: number; stats?: EngineStats; profile?: KernelProfile }
  | { type: 'fatal'; message: string; stack?: string }
  | { type: 'closed' };
