// An engine as its callers hold it: create one from options, submit requests, stream their tokens,
// close it. Submissions are stamped here, on the caller's thread, around the hand-off to
// the step loop; everything else is stamped by the loop on the same clock.
import type { MessagePort } from 'node:worker_threads';
import type { KernelProfile } from './backend/webgpu/profile.ts';
import type { EngineStats } from './metrics/step-stats.ts';
import type { EngineHost, EngineInfo } from './host/engine-host.ts';
import { type EngineOptions, resolveEngineOptions } from './engine-options.ts';
import { newTimeline } from './metrics/timeline.ts';
import { type ModelConfig, namedConfig, validateConfig } from './model/model-config.ts';
import { hfModelConfig } from './model/load-model.ts';
import type { EngineEvent, GenerateRequest } from './core/request.ts';
import { type RequestHandle, RequestStream } from './request-stream.ts';
import { createSimHost } from './host/sim-host.ts';

export interface Engine {
  /** Always carries `description`, the one line every report prints about the backend. */
  readonly info: EngineInfo & { description: string };
  /** The engine clock (ms): monotonic, or virtual on the sim. */
  now(): number;
  /** Waits until the engine clock reads `time` (on the sim, lets simulated time pass). */
  sleepUntil(time: number): Promise<void>;
  submit(request: GenerateRequest): RequestHandle;
  stats(): Promise<EngineStats>;
  /**
   * Time per kernel since the start, when created with `profile: true` on the webgpu backend
   * (GPU timestamps where the adapter has them, else CPU-side timing); undefined otherwise.
   */
  profile(): Promise<KernelProfile | undefined>;
  clearPrefixCache(): Promise<void>;
  /**
   * Shares this engine with another thread: that thread passes the port (in a transfer list)
   * to connectEngine and submits to the same step loop. Real backends only: the sim's loop
   * runs on this thread's virtual clock.
   */
  connectPort(): MessagePort;
  /**
   * Aborts what is still running and stops the loop; on an engine from connectEngine, lets
   * go of it (the engine runs on for the thread that created it).
   */
  close(): Promise<void>;
}

/** Checks the options (throwing RangeError before anything is allocated), then starts the loop. */
export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  const resolved = resolveEngineOptions(options);
  const config = resolveModelConfig(resolved.model, resolved.weightsDir);
  let host: EngineHost;
  if (resolved.backend === 'sim') {
    host = createSimHost(resolved, config);
  } else {
    const { createWorkerHost } = await import('./host/worker-host.ts');
    host = await createWorkerHost(resolved, config);
  }
  return new EngineClient(host);
}

/** The engine another thread shared over `port` (its engine.connectPort()). */
export async function connectEngine(port: MessagePort): Promise<Engine> {
  const { connectHost } = await import('./host/message-host.ts');
  const { ready, die } = connectHost(port, { last: 'detach', release: () => port.close() });
  port.on('close', () => die(new Error('the engine is gone')));
  return new EngineClient(await ready);
}

/** The model's shapes, read without loading weights (so a bad name or a config that does not fit its weights fails fast). */
export function resolveModelConfig(model: string | ModelConfig, weightsDir?: string): ModelConfig {
  if (weightsDir === undefined) return typeof model === 'string' ? namedConfig(model) : validateConfig({ ...model });
  return hfModelConfig(weightsDir);
}

class EngineClient implements Engine {
  readonly info: EngineInfo & { description: string };
  private readonly host: EngineHost;
  private readonly open = new Map<number, RequestStream>();
  private nextId = 0;
  private fatal: Error | null = null;
  private closed = false;

  constructor(host: EngineHost) {
    this.host = host;
    this.info = { ...host.info, description: host.info.description ?? `${host.info.backend}, ${host.info.device}` };
    host.onEvents = (events) => {
      for (const event of events) this.dispatch(event);
    };
    host.onFatal = (error) => {
      this.fatal = error;
      const time = this.now();
      for (const stream of this.open.values()) stream.fail(`engine failed: ${error.message}`, time);
      this.open.clear();
    };
  }

  now(): number {
    return this.host.clock.now();
  }

  private dispatch(event: EngineEvent): void {
    switch (event.type) {
      case 'admit':
        for (const id of event.ids) this.open.get(id)?.admit(event.time);
        return;
      case 'tokens':
        for (let r = 0; r < event.ids.length; r++) this.open.get(event.ids[r])?.token(event.tokens[r], event.time);
        return;
      case 'finish':
        this.open.get(event.id)?.finish(event.reason, event.time);
        this.open.delete(event.id);
        return;
      case 'error':
        this.open.get(event.id)?.fail(event.message, event.time);
        this.open.delete(event.id);
        return;
    }
  }

  sleepUntil(time: number): Promise<void> {
    return this.host.sleepUntil(time);
  }

  submit(request: GenerateRequest): RequestHandle {
    const submitStart = this.now();
    const id = this.nextId++;
    const timeline = newTimeline(request.promptIds?.length ?? 0, submitStart);
    const stream = new RequestStream(id, timeline, () => this.host.abort(id));
    if (this.fatal || this.closed) {
      stream.fail(this.fatal ? `engine failed: ${this.fatal.message}` : 'engine closed', submitStart);
      return stream;
    }
    this.open.set(id, stream);
    this.host.submit(id, request);
    timeline.submitEnd = this.now();
    return stream;
  }

  stats(): Promise<EngineStats> {
    return this.host.stats();
  }

  async profile(): Promise<KernelProfile | undefined> {
    return this.host.profile ? this.host.profile() : undefined;
  }

  clearPrefixCache(): Promise<void> {
    return this.host.clearPrefixCache();
  }

  connectPort(): MessagePort {
    if (!this.host.connectPort) throw new Error(`the ${this.info.backend} backend runs on its caller's thread and cannot be shared with another`);
    return this.host.connectPort();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.host.close();
    const time = this.now();
    for (const stream of this.open.values()) stream.fail('engine closed', time);
    this.open.clear();
  }
}
