// The engine worker: owns the backend (cpu or webgpu, or whichever `auto` picks) and runs the
// step loop, so the main thread stays free to stamp arrivals and receive tokens while a step
// computes. Both backends keep K/V as fp32, so the pool is sized with the cpu backend's bytes
// per token before the choice is made.
import { parentPort, workerData } from 'node:worker_threads';
import { kvBytesPerToken } from '../backend/cpu/cpu-backend.ts';
import { createBackend, profileOf } from '../backend/create-backend.ts';
import { monotonicClock } from '../engine-clock.ts';
import { EngineCore } from '../core/engine-core.ts';
import type { EngineEvent } from '../core/request.ts';
import { runSteps } from '../core/step-loop.ts';
import { StepStats } from '../metrics/step-stats.ts';
import { warmEngine } from './warm-engine.ts';
import type { EngineInfo } from './engine-host.ts';
import { DEFAULT_CPU_KV_BYTES, poolBlocks } from '../engine-options.ts';
import { loadHfModelDir } from '../model/load-model.ts';
import { syntheticWeights } from '../model/weights.ts';
import type { FromWorker, ToWorker, WorkerData } from './worker-protocol.ts';
import { EngineClients } from './engine-clients.ts';

const port = parentPort!;
const { options, config: shapes } = workerData as WorkerData;
const post = (message: FromWorker) => port.postMessage(message);

async function main(): Promise<void> {
  const model =
    options.weightsDir !== undefined
      ? loadHfModelDir(options.weightsDir)
      : { config: shapes, weights: syntheticWeights(shapes, options.weightsSeed), source: `synthetic weights (seed ${options.weightsSeed})` };
  const { config } = model;
  const bytesPerToken = kvBytesPerToken(config);
  const numBlocks = poolBlocks(options, config.nCtx, bytesPerToken, DEFAULT_CPU_KV_BYTES);
  const kv = { numBlocks, blockSize: options.blockSize };
  if (options.backend === 'sim') throw new Error('the sim backend runs on the main thread, not in the engine worker');
  const { backend, description } = await createBackend(options.backend, {
    config,
    weights: model.weights,
    kv,
    threads: options.threads,
    profile: options.profile,
    maxBatchTokens: options.scheduler.maxBatchedTokens,
  });
  const coreOptions = { config, scheduler: options.scheduler, numBlocks, blockSize: options.blockSize, prefixCaching: options.prefixCaching, seed: options.seed };
  // Not when kernels are profiled: the profile counts every kernel the backend ran.
  if (!options.profile) await warmEngine(backend, new EngineCore({ ...coreOptions, prefixCaching: false }, monotonicClock, new StepStats(monotonicClock, false)));
  const stats = new StepStats(monotonicClock, options.traceSteps);
  const core = new EngineCore(coreOptions, monotonicClock, stats);

  const info: EngineInfo = {
    model: config,
    weights: model.source,
    backend: backend.name,
    device: backend.device,
    description,
    profiling: profileOf(backend) !== undefined,
    clock: 'monotonic',
    numBlocks,
    blockSize: options.blockSize,
    kvBytesPerToken: bytesPerToken,
    prefixCaching: options.prefixCaching,
    scheduler: options.scheduler,
    seed: options.seed,
  };
  let closing = false;
  let wake: (() => void) | null = null;
  const clients = new EngineClients({ post });
  const emit = (events: EngineEvent[]) => clients.route(events);
  const flush = () => emit(core.takeEvents());
  /** What client `slot` asks of the engine (slot 0: the thread that created it). */
  const handle = (slot: number, message: ToWorker) => {
    const reply = clients.client(slot);
    switch (message.type) {
      case 'submit': {
        const id = clients.coreId(slot, message.id);
        clients.opened(slot, id);
        core.add(id, message.request);
        break;
      }
      case 'abort':
        core.abort(clients.coreId(slot, message.id));
        break;
      case 'stats':
        reply?.post({ type: 'reply', replyTo: message.replyTo, stats: stats.take(core) });
        break;
      case 'profile':
        reply?.post({ type: 'reply', replyTo: message.replyTo, profile: profileOf(backend) });
        break;
      case 'clear-prefix-cache':
        core.clearPrefixCache();
        reply?.post({ type: 'reply', replyTo: message.replyTo });
        break;
      case 'attach': {
        const shared = message.port;
        if (closing) {
          shared.postMessage({ type: 'closed' } satisfies FromWorker);
          break;
        }
        let attachedSlot: number;
        try {
          attachedSlot = clients.attach(shared);
        } catch (error) {
          shared.postMessage({ type: 'fatal', message: (error as Error).message } satisfies FromWorker);
          shared.close();
          break;
        }
        shared.on('message', (m: ToWorker) => handle(attachedSlot, m));
        // The thread went away without detaching (it crashed, or was terminated): its requests
        // would run on for no one, holding KV blocks. They stop at the next step.
        shared.on('close', () => {
          for (const id of clients.openRequests(attachedSlot)) core.abort(id);
          clients.detach(attachedSlot);
          flush();
          wake?.();
        });
        shared.postMessage({ type: 'ready', info } satisfies FromWorker);
        break;
      }
      case 'detach':
        clients.detach(slot);
        break;
      case 'close':
        if (slot === 0) closing = true;
        break;
    }
    flush(); // rejections and aborts answer at once
    wake?.();
  };
  port.on('message', (message: ToWorker) => handle(0, message));

  post({ type: 'ready', info });

  await runSteps(core, {
    get open() {
      return !closing;
    },
    forward: (batch) => backend.step(batch),
    emit,
    async idle() {
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    },
    // Let submits and aborts that arrived during the step in before the next schedule.
    pause: () => new Promise<void>((resolve) => setImmediate(resolve)),
  });
  core.abortAll();
  flush();
  clients.closeAll();
  await backend.close();
  post({ type: 'closed' });
  port.close();
}

main().catch((error: unknown) => {
  const e = error instanceof Error ? error : new Error(String(error));
  post({ type: 'fatal', message: e.message, stack: e.stack });
});
