// The step loop's body, the same wherever it runs (the engine worker for real backends, the
// main thread for the sim): schedule, build the batch, run the backend, hand out tokens.
// Results leave as events stamped on the engine's clock.
import type { Backend, ForwardBatch, StepResult } from '../backend/backend.ts';
import { type Clock, monotonicClock } from '../engine-clock.ts';
import { ForwardBatchBuilder } from './forward-batch.ts';
import { BlockManager, type KvStats } from './block-manager.ts';
import { type UsagePoint, UsageSeries } from '../metrics/usage-series.ts';
import { StepTrace, type TracedStep } from '../metrics/step-trace.ts';
import { stepShape, type StepShape } from '../backend/sim/step-shape.ts';
import type { ModelConfig } from '../model/model-config.ts';
import { type EngineEvent, type GenerateRequest, requestProblem } from './request.ts';
import { requestSeed } from '../sampling-rng.ts';
import type { SchedulerOptions } from './scheduler-options.ts';
import { Scheduler, type SchedulerStats, type StepSink } from './scheduler.ts';
import { type FinishReason, Sequence } from './sequence.ts';

export interface CoreOptions {
  config: ModelConfig;
  scheduler: SchedulerOptions;
  numBlocks: number;
  blockSize: number;
  prefixCaching: boolean;
  seed: number;
  /** Keep every step's shape and times (stats().steps). */
  traceSteps?: boolean;
}

export interface EngineStats {
  kv: KvStats;
  scheduler: SchedulerStats;
  /** KV usage and running sequences over the steps since the previous call (at most MAX_USAGE_POINTS points). */
  usage: UsagePoint[];
  /** With traceSteps: each step since the previous call. */
  steps?: TracedStep[];
  /** Engine-clock time spent in backend.step. */
  forwardMs: number;
  /** Host time spent scheduling, building batches and applying results (real ms, even on the sim). */
  overheadMs: number;
  finished: number;
  rejected: number;
  aborted: number;
  waiting: number;
  running: number;
}

export class EngineCore implements StepSink {
  readonly blocks: BlockManager;
  readonly scheduler: Scheduler;
  private readonly backend: Backend;
  private readonly clock: Clock;
  private readonly options: CoreOptions;
  private readonly batches: ForwardBatchBuilder;
  private readonly sequences = new Map<number, Sequence>();
  private readonly usage = new UsageSeries();
  private readonly trace: StepTrace | null;
  private stepShape: StepShape | null = null;
  private events: EngineEvent[] = [];
  // The step being completed: its end time, its tokens (one row per sampled sequence) and
  // the sequences it finished, gathered before they leave as events.
  private stepTime = 0;
  private readonly stepIds: Int32Array;
  private readonly stepTokens: Int32Array;
  private stepRows = 0;
  private stepFinished: EngineEvent[] = [];
  private forwardMs = 0;
  private overheadMs = 0;
  private stepStart = 0;
  private finished = 0;
  private rejected = 0;
  private aborted = 0;

  constructor(backend: Backend, options: CoreOptions, clock: Clock) {
    this.backend = backend;
    this.options = options;
    this.clock = clock;
    this.trace = options.traceSteps ? new StepTrace() : null;
    this.blocks = new BlockManager(options.numBlocks, options.blockSize, options.prefixCaching);
    this.scheduler = new Scheduler(options.scheduler, this.blocks, options.config.nCtx);
    this.stepIds = new Int32Array(options.scheduler.maxNumSeqs);
    this.stepTokens = new Int32Array(options.scheduler.maxNumSeqs);
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
    const seq = new Sequence(id, request.promptIds, params, Math.max(capacity, request.promptIds.length));
    const reason = this.scheduler.rejectReason(seq);
    if (reason !== null) return this.reject(id, reason);
    this.sequences.set(id, seq);
    this.scheduler.add(seq);
  }

  abort(id: number): void {
    const seq = this.sequences.get(id);
    if (!seq || !this.scheduler.abort(seq)) return;
    this.sequences.delete(id);
    this.aborted++;
    this.events.push({ type: 'finish', id, reason: 'aborted', time: this.clock.now() });
  }

  hasWork(): boolean {
    return this.scheduler.hasWork();
  }

  /** Schedules the next step and stamps admissions; null when nothing can run. */
  beginStep(): ForwardBatch | null {
    const hostStart = monotonicClock.now();
    const seqs = this.scheduler.schedule();
    if (seqs.length === 0) return null;
    const time = this.clock.now();
    if (this.scheduler.admitted.length > 0) this.events.push({ type: 'admit', ids: this.scheduler.admitted.map((seq) => seq.id), time });
    const batch = this.batches.build(seqs);
    this.usage.record(time, this.scheduler.usage);
    this.stepStart = time;
    if (this.trace) this.stepShape = stepShape(batch);
    this.overheadMs += monotonicClock.now() - hostStart;
    return batch;
  }

  /** Applies the backend's result; tokens are stamped now, when the step has ended. */
  endStep(result: StepResult): void {
    const time = this.clock.now();
    this.forwardMs += time - this.stepStart;
    const hostStart = monotonicClock.now();
    this.stepTime = time;
    this.stepRows = 0;
    this.scheduler.complete(result.tokens, this);
    if (this.stepRows > 0) {
      const n = this.stepRows;
      this.events.push({ type: 'tokens', ids: this.stepIds.slice(0, n), tokens: this.stepTokens.slice(0, n), time });
    }
    this.events.push(...this.stepFinished);
    this.stepFinished = [];
    if (this.trace && this.stepShape) this.trace.record({ ...this.stepShape, start: this.stepStart, end: this.clock.now(), busy: this.scheduler.hasWork() });
    this.overheadMs += monotonicClock.now() - hostStart;
  }

  /** One whole step against the backend; false if nothing was runnable. */
  async step(): Promise<boolean> {
    const batch = this.beginStep();
    if (batch === null) return false;
    this.endStep(await this.backend.step(batch));
    return true;
  }

  /** Events since the last call, oldest first. */
  takeEvents(): EngineEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  /** Aborts everything in flight (engine shutting down). */
  abortAll(): void {
    for (const id of [...this.sequences.keys()]) this.abort(id);
  }

  /** Counters are cumulative since the engine started; peaks and the usage series are since the previous call. */
  stats(): EngineStats {
    return {
      kv: this.blocks.stats(),
      scheduler: this.scheduler.takeStats(),
      usage: this.usage.take(),
      ...(this.trace ? { steps: this.trace.take() } : {}),
      forwardMs: this.forwardMs,
      overheadMs: this.overheadMs,
      finished: this.finished,
      rejected: this.rejected,
      aborted: this.aborted,
      waiting: this.scheduler.waiting.length,
      running: this.scheduler.running.length,
    };
  }

  private reject(id: number, message: string): void {
    this.rejected++;
    this.events.push({ type: 'error', id, message, time: this.clock.now() });
  }

  onToken(seq: Sequence, token: number): void {
    this.stepIds[this.stepRows] = seq.id;
    this.stepTokens[this.stepRows++] = token;
  }

  onFinish(seq: Sequence, reason: FinishReason): void {
    this.sequences.delete(seq.id);
    this.finished++;
    this.stepFinished.push({ type: 'finish', id: seq.id, reason, time: this.stepTime });
  }
}
