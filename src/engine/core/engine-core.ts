// The engine's core, the same wherever the step loop runs (the engine worker for real backends,
// the main thread for the sim): requests come in, each step is scheduled into one batch and its
// sampled tokens are applied, and results leave as events stamped on the engine's clock. What
// the steps add up to (statistics) is kept by an observer that the core tells of each step.
import type { ForwardBatch, StepResult } from '../backend/backend.ts';
import { type Clock, monotonicClock } from '../engine-clock.ts';
import { Int32Chunks } from '../int32-chunks.ts';
import type { ModelConfig } from '../model/model-config.ts';
import { requestSeed } from '../sampling-rng.ts';
import { BlockManager } from './block-manager.ts';
import { ForwardBatchBuilder } from './forward-batch.ts';
import { type EngineEvent, type GenerateRequest, requestProblem } from './request.ts';
import type { SchedulerOptions } from './scheduler-options.ts';
import { Scheduler, type StepSink } from './scheduler.ts';
import { type FinishReason, Sequence } from './sequence.ts';

export interface CoreOptions {
  config: ModelConfig;
  scheduler: SchedulerOptions;
  numBlocks: number;
  blockSize: number;
  prefixCaching: boolean;
  seed: number;
}

/**
 * Watches the steps from outside the core (the engine's statistics). The core tells it what
 * happened and never asks it anything, so nothing the engine decides depends on it.
 */
export interface StepObserver {
  /**
   * A step was scheduled: the scheduler holds its sequences, `batch` is its forward pass, `time`
   * stamps its admissions, and the core's host work on it began at `hostStart` (monotonic ms).
   */
  scheduled(core: EngineCore, batch: ForwardBatch, time: number, hostStart: number): void;
  /** The step's result was applied; its forward pass had ended at `forwardEnd` (engine clock). */
  completed(core: EngineCore, forwardEnd: number, hostStart: number): void;
  /** Every event, as the core emits it. */
  emitted(event: EngineEvent): void;
}

export class EngineCore implements StepSink {
  readonly blocks: BlockManager;
  readonly scheduler: Scheduler;
  private readonly clock: Clock;
  private readonly options: CoreOptions;
  private readonly observer: StepObserver;
  private readonly batches: ForwardBatchBuilder;
  private readonly sequences = new Map<number, Sequence>();
  /** Where sequences' token arrays come from: one buffer of its own per request costs more than the request's bookkeeping. */
  private readonly tokenArrays = new Int32Chunks();
  private events: EngineEvent[] = [];
  // The step being applied: its end time, its tokens (one row per sampled sequence) and the
  // sequences it finished, gathered before they leave as events. The token lists are plain
  // arrays, new each step, that the event then owns: a typed array of its own would be an
  // allocation outside the JS heap (~1-2 µs each, two a step on a million-request sim run).
  private stepTime = 0;
  private stepIds: number[] = [];
  private stepTokens: number[] = [];
  private stepFinished: EngineEvent[] = [];

  constructor(options: CoreOptions, clock: Clock, observer: StepObserver) {
    this.options = options;
    this.clock = clock;
    this.observer = observer;
    this.blocks = new BlockManager(options.numBlocks, options.blockSize, options.prefixCaching);
    this.scheduler = new Scheduler(options.scheduler, this.blocks, options.config.nCtx);
    const maxBlocksPerSeq = Math.ceil(options.config.nCtx / options.blockSize);
    this.batches = new ForwardBatchBuilder(
      options.scheduler.maxBatchedTokens,
      options.scheduler.maxNumSeqs,
      maxBlocksPerSeq,
      options.blockSize,
    );
  }

  add(id: number, request: GenerateRequest): void {
    const problem = requestProblem(request, this.options.config.vocabSize);
    if (problem !== null) return this.reject(id, problem);
    const params = {
      temperature: request.temperature ?? 0,
      topK: request.topK ?? 0,
      topP: request.topP ?? 1,
      seed: request.seed ?? requestSeed(this.options.seed, id),
      maxNewTokens: request.maxNewTokens,
      stopTokenIds: request.stopTokenIds ?? [],
      stopAfterTokens: request.stopAfterTokens ?? Infinity,
    };
    // Room for the prompt, every new token, and no more than the context allows (+1: the
    // last token is emitted without being fed back).
    const capacity = Math.min(request.promptIds.length + request.maxNewTokens, this.options.config.nCtx + 1);
    const seq = new Sequence(id, request.promptIds, params, Math.max(capacity, request.promptIds.length), (n) => this.tokenArrays.take(n));
    const reason = this.scheduler.rejectReason(seq);
    if (reason !== null) return this.reject(id, reason);
    this.sequences.set(id, seq);
    this.scheduler.add(seq);
  }

  abort(id: number): void {
    const seq = this.sequences.get(id);
    if (!seq || !this.scheduler.abort(seq)) return;
    this.sequences.delete(id);
    this.emit({ type: 'finish', id, reason: 'aborted', time: this.clock.now() });
  }

  /** Aborts everything in flight (engine shutting down). */
  abortAll(): void {
    for (const id of [...this.sequences.keys()]) this.abort(id);
  }

  hasWork(): boolean {
    return this.scheduler.hasWork();
  }

  /** Forgets every cached prefix (benchmarks call it between runs). */
  clearPrefixCache(): void {
    this.blocks.clearPrefixCache();
  }

  /** Schedules the next step and stamps its admissions; null when nothing can run. */
  schedule(): ForwardBatch | null {
    const hostStart = monotonicClock.now();
    const seqs = this.scheduler.schedule();
    if (seqs.length === 0) return null;
    const time = this.clock.now();
    if (this.scheduler.admitted.length > 0) this.emit({ type: 'admit', ids: this.scheduler.admitted.map((seq) => seq.id), time });
    const batch = this.batches.build(seqs);
    this.observer.scheduled(this, batch, time, hostStart);
    return batch;
  }

  /** Applies the step's result: tokens are stamped now, when the step has ended. */
  postprocess(result: StepResult): void {
    const time = this.clock.now();
    const hostStart = monotonicClock.now();
    this.stepTime = time;
    this.stepIds = [];
    this.stepTokens = [];
    this.scheduler.postprocess(result.tokens, this);
    if (this.stepIds.length > 0) this.emit({ type: 'tokens', ids: this.stepIds, tokens: this.stepTokens, time });
    for (const finish of this.stepFinished) this.emit(finish);
    this.stepFinished = [];
    this.observer.completed(this, time, hostStart);
  }

  /** Events since the last call, oldest first. */
  takeEvents(): EngineEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  onToken(seq: Sequence, token: number): void {
    this.stepIds.push(seq.id);
    this.stepTokens.push(token);
  }

  onFinish(seq: Sequence, reason: FinishReason): void {
    this.sequences.delete(seq.id);
    this.stepFinished.push({ type: 'finish', id: seq.id, reason, time: this.stepTime });
  }

  private reject(id: number, message: string): void {
    this.emit({ type: 'error', id, message, time: this.clock.now() });
  }

  private emit(event: EngineEvent): void {
    this.events.push(event);
    this.observer.emitted(event);
  }
}
