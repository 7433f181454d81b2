// The creating thread's side of the engine worker: starts the worker and speaks its protocol
// (message-host.ts) over it. A crash or an exit of the worker fails every open request.
import { Worker } from 'node:worker_threads';
import type { EngineHost } from './engine-host.ts';
import type { ResolvedEngineOptions } from '../engine-options.ts';
import type { ModelConfig } from '../model/model-config.ts';
import type { WorkerData } from './worker-protocol.ts';
import { threadEntry } from '../thread-entry.ts';
import { connectHost } from './message-host.ts';

export function createWorkerHost(options: ResolvedEngineOptions, config: ModelConfig): Promise<EngineHost> {
  const data: WorkerData = { options, config };
  const worker = new Worker(threadEntry('engine-worker', new URL('./engine-worker.js', import.meta.url)), { workerData: data });
  const { ready, die } = connectHost(worker, { last: 'close', release: () => worker.terminate().then(() => undefined) });
  worker.on('error', (error: Error) => die(error));
  worker.on('exit', (code) => die(new Error(`the engine worker exited (code ${code})`)));
  return ready;
}
