// Messages between the engine worker and its clients: the thread that created it, and the
// threads it was shared with over a MessagePort (engine.connectPort()).
import type { MessagePort } from 'node:worker_threads';
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
  /** From the creating thread: shares the engine with the thread that holds the port's other end. */
  | { type: 'attach'; port: MessagePort }
  /** From a shared thread: it is done with the engine (the engine runs on). */
  | { type: 'detach' }
  /** From the creating thread: stop the loop. */
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready'; info: EngineInfo }
  | { type: 'events'; events: EngineEvent[] }
  | { type: 'reply'; replyTo: number; stats?: EngineStats; profile?: KernelProfile }
  | { type: 'fatal'; message: string; stack?: string }
  | { type: 'closed' };
