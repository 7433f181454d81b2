// Runs a workload against an engine: warm-up runs (discarded), then measured repeats, each
// starting with a cold prefix cache. Requests are submitted at their arrival times while
// earlier ones stream; the report holds every request's metrics plus KV and scheduler stats
// and a short series of KV usage over time.
import type { EngineStats } from '../metrics/step-stats.ts';
import type { KernelProfile } from '../backend/webgpu/profile.ts';
import { type Engine, createEngine } from '../engine.ts';
import type { EngineOptions } from '../engine-options.ts';
import type { RequestHandle } from '../request-stream.ts';
import type { EngineInfo } from '../host/engine-host.ts';
import type { UsagePoint } from '../metrics/usage-series.ts';
import { type MetricsSummary, type Slo, summarize } from '../metrics/summary.ts';
import type { RequestTimeline } from '../metrics/timeline.ts';
import { stepTimes } from '../metrics/step-trace.ts';
import type { StepShape } from '../backend/sim/step-shape.ts';
import { type WorkloadRequest, type WorkloadSpec, generateWorkload } from './workload.ts';

export interface BenchmarkOptions {
  engine: EngineOptions;
  workload: WorkloadSpec;
  warmupRuns?: number;
  repeatRuns?: number;
  slo?: Slo;
  /** Sampling of every request (default greedy). Generation never stops at EOS: lengths are the workload's (see WorkloadSpec.maxNewTokens). */
  sampling?: { temperature?: number; topK?: number; topP?: number };
  /** Aborting stops submitting, aborts what runs, and returns a partial report. */
  signal?: AbortSignal;
  /**
   * Called once the engine has started, before the first request. An abort is seen only from
   * then on: webgpu's start (compiling every kernel) cannot be cut short, so a caller says so.
   */
  onEngineStarted?: () => void;
}

export interface BenchmarkProgress {
  phase: 'warmup' | 'measure';
  /** 1-based run within its phase. */
  run: number;
  runs: number;
  finished: number;
  total: number;
}

export interface KvRunStats {
  numBlocks: number;
  blockSize: number;
  kvBytesPerToken: number;
  peakUsedBlocks: number;
  /** Free blocks still holding a prefix when the run ended. */
  cachedBlocks: number;
  prefixHitRate: number;
  /** Mean over steps of slots held by running sequences but not (yet) filled. */
  meanWastedSlots: number;
  /** Means over steps of the blocks held (reserved) and of the token slots in them holding K/V. */
  meanReservedBlocks: number;
  meanUsedSlots: number;
  /** Used slots over reserved slots, over all steps; fragmentation = 1 - utilization. */
  utilization: number;
  fragmentation: number;
}

/** One point of the KV usage chart (each averages one or more consecutive steps). */
export interface UsageSample {
  /** ms since the run started, at the point's first step. */
  timeMs: number;
  running: number;
  reservedBlocks: number;
  usedSlots: number;
  /** usedSlots / (reservedBlocks * blockSize); 0 when nothing is reserved. */
  utilization: number;
}

export interface SchedulerRunStats {
  steps: number;
  prefillTokens: number;
  decodeTokens: number;
  meanBatchTokens: number;
  meanRunning: number;
  maxRunning: number;
  maxWaiting: number;
  preemptions: number;
  rejected: number;
  /** Engine-clock ms in the backend's forward passes. */
  forwardMs: number;
  /** Host ms scheduling and bookkeeping (real time, even on the sim). */
  overheadMs: number;
}

export interface RunReport {
  metrics: MetricsSummary;
  kv: KvRunStats;
  scheduler: SchedulerRunStats;
  /** Running sequences and KV usage over the run, at most MAX_USAGE_POINTS points. */
  usage: UsageSample[];
  timelines: RequestTimeline[];
  /**
   * With the engine's traceSteps: each step of the run that another followed at once, its
   * shape and time (what a sim profile's cost terms are checked against).
   */
  steps?: { shape: StepShape; ms: number }[];
}

export interface BenchmarkReport {
  engine: EngineInfo;
  workload: WorkloadSpec;
  warmupRuns: number;
  repeatRuns: number;
  /** The measured repeats, in order. */
  runs: RunReport[];
  /** All measured requests pooled (percentiles over every request; throughput over the runs' summed time). */
  metrics: MetricsSummary;
  kv: KvRunStats;
  scheduler: SchedulerRunStats;
  /** The last measured run's usage series. */
  usage: UsageSample[];
  /** True when the run was aborted before every request finished. */
  partial: boolean;
  /** Time per kernel over the whole benchmark, when the engine was created with profile: true. */
  profile?: KernelProfile;
}

/** Thrown when the run is aborted before any measured repeat has finished. */
export class BenchmarkAborted extends Error {
  constructor() {
    super('the benchmark was aborted during warm-up; nothing was measured');
    this.name = 'BenchmarkAborted';
  }
}

export async function runBenchmark(
  options: BenchmarkOptions,
  onProgress: (progress: BenchmarkProgress) => void = () => {},
): Promise<BenchmarkReport> {
  const warmupRuns = options.warmupRuns ?? 1;
  const repeatRuns = options.repeatRuns ?? 1;
  if (!Number.isInteger(warmupRuns) || warmupRuns < 0) throw new RangeError(`warmupRuns must be an integer >= 0 (got ${warmupRuns})`);
  if (!Number.isInteger(repeatRuns) || repeatRuns < 1) throw new RangeError(`repeatRuns must be an integer >= 1 (got ${repeatRuns})`);
  const engine = await createEngine(options.engine);
  options.onEngineStarted?.();
  try {
    const requests = generateWorkload(options.workload, engine.info.model.vocabSize);
    const runs: RunReport[] = [];
    let partial = false;
    for (let i = 0; i < warmupRuns + repeatRuns && !partial; i++) {
      const measured = i >= warmupRuns;
      const phase = measured ? 'measure' : 'warmup';
      const progress = (finished: number) =>
        onProgress({ phase, run: measured ? i - warmupRuns + 1 : i + 1, runs: measured ? repeatRuns : warmupRuns, finished, total: requests.length });
      await engine.clearPrefixCache();
      await engine.stats(); // restarts the peaks
      const before = await engine.stats();
      const outcome = await runOnce(engine, requests, options, progress);
      partial = outcome.aborted;
      if (!measured) continue;
      const after = await engine.stats();
      runs.push({
        metrics: summarize(outcome.timelines, options.slo ?? null),
        ...runStats(engine.info, before, after),
        usage: usageSamples(after.usage, outcome.start, engine.info.blockSize),
        timelines: outcome.timelines,
        ...(after.steps ? { steps: stepTimes(after.steps) } : {}),
      });
    }
    if (runs.length === 0) throw new BenchmarkAborted();
    return {
      engine: engine.info,
      workload: options.workload,
      warmupRuns,
      repeatRuns,
      runs,
      ...pool(runs, options.slo ?? null),
      usage: runs[runs.length - 1].usage,
      partial,
      profile: (await engine.profile()) ?? undefined,
    };
  } finally {
    await engine.close();
  }
}

async function runOnce(
  engine: Engine,
  requests: readonly WorkloadRequest[],
  options: BenchmarkOptions,
  progress: (finished: number) => void,
): Promise<{ timelines: RequestTimeline[]; aborted: boolean; start: number }> {
  // Every request's timeline, in submission order; the handles only while their requests run
  // (to abort them). A finished request's stream and output tokens are let go: a sim run of
  // 1,000,000 requests would otherwise keep them all to the end, and the garbage collector
  // would copy them from one generation to the next.
  const timelines: RequestTimeline[] = [];
  const running = new Set<RequestHandle>();
  let finished = 0;
  let lastFinished: (() => void) | null = null;
  const abortAll = () => running.forEach((h) => h.abort());
  options.signal?.addEventListener('abort', abortAll);
  const start = engine.now();
  try {
    for (const request of requests) {
      if (options.signal?.aborted) break;
      await engine.sleepUntil(start + request.arrivalMs);
      if (options.signal?.aborted) break;
      const { promptIds, maxNewTokens, stopAfterTokens } = request;
      const handle = engine.submit({ ...options.sampling, promptIds, maxNewTokens, stopAfterTokens });
      timelines.push(handle.timeline);
      running.add(handle);
      void handle.done.then(() => {
        running.delete(handle);
        // A request stopped by an interrupt did not finish: the bar stays where the run stopped.
        if (handle.timeline.error !== 'aborted') progress(++finished);
        if (running.size === 0) lastFinished?.();
      });
    }
    if (running.size > 0) await new Promise<void>((resolve) => (lastFinished = resolve));
    return { timelines, aborted: options.signal?.aborted ?? false, start };
  } finally {
    options.signal?.removeEventListener('abort', abortAll);
  }
}

function usageSamples(points: readonly UsagePoint[], start: number, blockSize: number): UsageSample[] {
  return points.map((p) => ({
    timeMs: p.time - start,
    running: p.running,
    reservedBlocks: p.reservedBlocks,
    usedSlots: p.usedSlots,
    utilization: p.reservedBlocks > 0 ? p.usedSlots / (p.reservedBlocks * blockSize) : 0,
  }));
}

function runStats(info: EngineInfo, before: EngineStats, after: EngineStats): Omit<RunReport, 'metrics' | 'usage' | 'timelines' | 'steps'> {
  const s0 = before.scheduler;
  const s1 = after.scheduler;
  const steps = s1.steps - s0.steps;
  const queried = after.kv.prefixQueryTokens - before.kv.prefixQueryTokens;
  const hits = after.kv.prefixHitTokens - before.kv.prefixHitTokens;
  const prefillTokens = s1.prefillTokens - s0.prefillTokens;
  const decodeTokens = s1.decodeTokens - s0.decodeTokens;
  const reservedBlocks = s1.reservedBlocksSum - s0.reservedBlocksSum;
  const usedSlots = s1.usedSlotsSum - s0.usedSlotsSum;
  const utilization = reservedBlocks > 0 ? usedSlots / (reservedBlocks * info.blockSize) : 0;
  return {
    kv: {
      numBlocks: info.numBlocks,
      blockSize: info.blockSize,
      kvBytesPerToken: info.kvBytesPerToken,
      peakUsedBlocks: after.kv.peakUsedBlocks,
      cachedBlocks: after.kv.cachedBlocks,
      prefixHitRate: queried > 0 ? hits / queried : 0,
      meanWastedSlots: steps > 0 ? (s1.wastedSlotsSum - s0.wastedSlotsSum) / steps : 0,
      meanReservedBlocks: steps > 0 ? reservedBlocks / steps : 0,
      meanUsedSlots: steps > 0 ? usedSlots / steps : 0,
      utilization,
      fragmentation: reservedBlocks > 0 ? 1 - utilization : 0,
    },
    scheduler: {
      steps,
      prefillTokens,
      decodeTokens,
      meanBatchTokens: steps > 0 ? (prefillTokens + decodeTokens) / steps : 0,
      meanRunning: steps > 0 ? (s1.runningSum - s0.runningSum) / steps : 0,
      maxRunning: s1.maxRunning,
      maxWaiting: s1.maxWaiting,
      preemptions: s1.preemptions - s0.preemptions,
      rejected: after.rejected - before.rejected,
      forwardMs: after.forwardMs - before.forwardMs,
      overheadMs: after.overheadMs - before.overheadMs,
    },
  };
}

/** One view of several repeats: percentiles over every request, rates over the summed run time. */
function pool(runs: readonly RunReport[], slo: Slo | null): Pick<BenchmarkReport, 'metrics' | 'kv' | 'scheduler'> {
  const last = runs[runs.length - 1];
  if (runs.length === 1) return { metrics: last.metrics, kv: last.kv, scheduler: last.scheduler };
  const metrics = summarize(runs.flatMap((r) => r.timelines), slo);
  const duration = runs.reduce((sum, r) => sum + r.metrics.durationMs, 0);
  const rate = (count: number) => (duration > 0 ? (count * 1000) / duration : 0);
  const good = runs.reduce((sum, r) => sum + (r.metrics.goodputRequestsPerS ?? 0) * r.metrics.durationMs, 0) / 1000;
  const mean = (pick: (r: RunReport) => number) => runs.reduce((sum, r) => sum + pick(r), 0) / runs.length;
  const sum = (pick: (r: RunReport) => number) => runs.reduce((total, r) => total + pick(r), 0);
  return {
    metrics: {
      ...metrics,
      durationMs: duration,
      submitWallMs: mean((r) => r.metrics.submitWallMs),
      outputTokensPerS: rate(metrics.completionTokens),
      totalTokensPerS: rate(metrics.completionTokens + metrics.promptTokens),
      requestsPerS: rate(metrics.completed),
      goodputRequestsPerS: slo === null ? null : rate(good),
    },
    kv: {
      ...last.kv,
      peakUsedBlocks: Math.max(...runs.map((r) => r.kv.peakUsedBlocks)),
      prefixHitRate: mean((r) => r.kv.prefixHitRate),
      meanWastedSlots: mean((r) => r.kv.meanWastedSlots),
      meanReservedBlocks: mean((r) => r.kv.meanReservedBlocks),
      meanUsedSlots: mean((r) => r.kv.meanUsedSlots),
      utilization: mean((r) => r.kv.utilization),
      fragmentation: mean((r) => r.kv.fragmentation),
    },
    scheduler: {
      steps: sum((r) => r.scheduler.steps),
      prefillTokens: sum((r) => r.scheduler.prefillTokens),
      decodeTokens: sum((r) => r.scheduler.decodeTokens),
      meanBatchTokens: mean((r) => r.scheduler.meanBatchTokens),
      meanRunning: mean((r) => r.scheduler.meanRunning),
      maxRunning: Math.max(...runs.map((r) => r.scheduler.maxRunning)),
      maxWaiting: Math.max(...runs.map((r) => r.scheduler.maxWaiting)),
      preemptions: sum((r) => r.scheduler.preemptions),
      rejected: sum((r) => r.scheduler.rejected),
      forwardMs: sum((r) => r.scheduler.forwardMs),
      overheadMs: sum((r) => r.scheduler.overheadMs),
    },
  };
}
