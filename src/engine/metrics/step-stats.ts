// The engine's statistics, kept by watching its steps: what each step scheduled, how the KV
// pool and the queues stood after it, how long it took, and how requests ended. The core tells
// this observer of every step and event; the scheduler and the block manager count nothing.
import type { ForwardBatch } from '../backend/backend.ts';
import { stepShape, type StepShape } from '../backend/sim/step-shape.ts';
import type { EngineCore, StepObserver } from '../core/engine-core.ts';
import type { EngineEvent } from '../core/request.ts';
import { type Clock, monotonicClock } from '../engine-clock.ts';
import { StepTrace, type TracedStep } from './step-trace.ts';
import { type UsagePoint, UsageSeries } from './usage-series.ts';

export interface KvStats {
  numBlocks: number;
  blockSize: number;
  usedBlocks: number;
  freeBlocks: number;
  /** Free blocks that still hold a reusable prefix. */
  cachedBlocks: number;
  /** Prompt tokens looked up in the prefix cache, and how many of them hit. */
  prefixQueryTokens: number;
  prefixHitTokens: number;
  hitRate: number;
  /** Most blocks in use at once since the previous stats() call. */
  peakUsedBlocks: number;
}

export interface SchedulerStats {
  steps: number;
  prefillTokens: number;
  decodeTokens: number;
  preemptions: number;
  /** Sums over steps, for means: running sequences, and slots held but not yet filled. */
  runningSum: number;
  wastedSlotsSum: number;
  /** Sums over steps of the KV blocks held and of the token slots in them holding K/V. */
  reservedBlocksSum: number;
  usedSlotsSum: number;
  /** Peaks since the previous stats() call. */
  maxRunning: number;
  maxWaiting: number;
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

export class StepStats implements StepObserver {
  private readonly clock: Clock;
  private readonly trace: StepTrace | null;
  private readonly usage = new UsageSeries();
  private readonly counts: SchedulerStats = {
    steps: 0,
    prefillTokens: 0,
    decodeTokens: 0,
    preemptions: 0,
    runningSum: 0,
    wastedSlotsSum: 0,
    reservedBlocksSum: 0,
    usedSlotsSum: 0,
    maxRunning: 0,
    maxWaiting: 0,
  };
  private prefixQueryTokens = 0;
  private prefixHitTokens = 0;
  // The step in flight: when it was scheduled, and its shape when steps are traced.
  private stepStart = 0;
  private stepShape: StepShape | null = null;
  private forwardMs = 0;
  private overheadMs = 0;
  private finished = 0;
  private rejected = 0;
  private aborted = 0;

  /** traceSteps: keep every step's shape and times (stats().steps). */
  constructor(clock: Clock, traceSteps = false) {
    this.clock = clock;
    this.trace = traceSteps ? new StepTrace() : null;
  }

  scheduled(core: EngineCore, batch: ForwardBatch, time: number, hostStart: number): void {
    const { scheduler, blocks } = core;
    const { started, running, waiting } = scheduler;
    const s = this.counts;
    s.steps++;
    s.preemptions += scheduler.preempted.length;
    for (let i = 0; i < started.length; i++) {
      this.prefixQueryTokens += started[i].numTokens;
      this.prefixHitTokens += started[i].numComputed; // the cached prefix it took
    }
    s.runningSum += running.length;
    s.maxRunning = Math.max(s.maxRunning, running.length);
    s.maxWaiting = Math.max(s.maxWaiting, waiting.length);
    // The step's tokens, and the pool as the step leaves it. Every sequence of the step is
    // running, and a running sequence outside it has no tokens scheduled.
    const bs = blocks.blockSize;
    let usedSlots = 0;
    for (let k = 0; k < running.length; k++) {
      const seq = running[k];
      if (seq.numUncomputed === 1 && seq.numOutputTokens > 0) s.decodeTokens += seq.numScheduled;
      else s.prefillTokens += seq.numScheduled;
      const filled = seq.numComputed + seq.numScheduled;
      s.wastedSlotsSum += seq.blockTable.length * bs - filled;
      // A block shared by r sequences (a prefix hit, always full) adds 1/r of its slots per holder.
      for (let i = 0; i * bs < filled; i++) usedSlots += Math.min(bs, filled - i * bs) / blocks.refs(seq.blockTable[i]);
    }
    const usage = { running: running.length, reservedBlocks: blocks.numBlocks - blocks.numFree, usedSlots: Math.round(usedSlots) };
    s.reservedBlocksSum += usage.reservedBlocks;
    s.usedSlotsSum += usage.usedSlots;
    this.usage.record(time, usage);
    this.stepStart = time;
    if (this.trace) this.stepShape = stepShape(batch);
    this.overheadMs += monotonicClock.now() - hostStart;
  }

  completed(core: EngineCore, forwardEnd: number, hostStart: number): void {
    this.forwardMs += forwardEnd - this.stepStart;
    if (this.trace && this.stepShape) this.trace.record({ ...this.stepShape, start: this.stepStart, end: this.clock.now(), busy: core.hasWork() });
    this.overheadMs += monotonicClock.now() - hostStart;
  }

  emitted(event: EngineEvent): void {
    if (event.type === 'finish') {
      if (event.reason === 'aborted') this.aborted++;
      else this.finished++;
    } else if (event.type === 'error') {
      this.rejected++;
    }
  }

  /** Counters are cumulative since the engine started; peaks, the usage series and the trace are since the previous call. */
  take(core: EngineCore): EngineStats {
    const { blocks, scheduler } = core;
    const peakUsedBlocks = blocks.takePeakUsed();
    const scheduled = { ...this.counts };
    // The peaks restart from the current queues.
    this.counts.maxRunning = scheduler.running.length;
    this.counts.maxWaiting = scheduler.waiting.length;
    return {
      kv: {
        peakUsedBlocks,
        numBlocks: blocks.numBlocks,
        blockSize: blocks.blockSize,
        usedBlocks: blocks.numBlocks - blocks.numFree,
        freeBlocks: blocks.numFree,
        cachedBlocks: blocks.cachedFreeBlocks(),
        prefixQueryTokens: this.prefixQueryTokens,
        prefixHitTokens: this.prefixHitTokens,
        hitRate: this.prefixQueryTokens > 0 ? this.prefixHitTokens / this.prefixQueryTokens : 0,
      },
      scheduler: scheduled,
      usage: this.usage.take(),
      ...(this.trace ? { steps: this.trace.take() } : {}),
      forwardMs: this.forwardMs,
      overheadMs: this.overheadMs,
      finished: this.finished,
      rejected: this.rejected,
      aborted: this.aborted,
      waiting: scheduler.waiting.length,
      running: scheduler.running.length,
    };
  }
}
