// The one place the lab runner meets the engine: lab settings -> the engine's benchmark
// options, and the benchmark report -> the flat lab metrics that checks and history read.
import { BenchmarkAborted, webgpuUnavailable, runBenchmark, type BenchmarkOptions, type BenchmarkReport, formatReport, type LengthSpec, percentile, type Percentiles, requestMetrics, type RequestTimeline, type DeviceSpec } from '../engine/index.ts';
import { metricCollector, type MeasuredMetrics, type MetricBounds, type ServerFigures } from './checks.ts';
import type { ProbeKernel } from './machine-probe.ts';
import type { LabProgress } from './progress.ts';
import type { LabSettings, Length } from './lab-settings.ts';

export interface PointRun {
  /** Every request of every measured run finished. */
  completed: boolean;
  metrics: MeasuredMetrics;
  /** Metrics only known to lie in a range (a server's histogram buckets); none from the bundled engine. */
  bounds?: MetricBounds;
  /** A server's own figures (--endpoint), its TTFT beside the client's; none from the bundled engine. */
  server?: ServerFigures;
  /** The engine's report (JSON-safe), or null when nothing was measured. */
  report: BenchmarkReport | null;
  table: string;
  /** One line on the backend that ran: its adapter or threads, and why `auto` chose it. */
  device: string | null;
  /** The backend that actually ran (`auto` resolved), or null when nothing was measured. */
  backend: string | null;
}

export interface PointHooks {
  signal?: AbortSignal;
  /** sim: the device to model when it is a profile rather than a built-in name. */
  simDevice?: DeviceSpec;
  /** Keep each step's shape and time (report.runs[].steps): `--compare` checks the sim's step costs with them. */
  traceSteps?: boolean;
  onProgress?(progress: Omit<LabProgress, 'point' | 'pointIndex' | 'points' | 'elapsedMs'>): void;
  /** The bundled engine has started: an abort now stops the point at once (not before). */
  onEngineStarted?(): void;
}

const MiB = 1024 * 1024;

function lengthSpec(length: Length): LengthSpec {
  if (length.values) return { values: length.values };
  return length.min === length.max ? length.min : { min: length.min, max: length.max };
}

export function benchmarkOptions(settings: LabSettings, signal?: AbortSignal, simDevice?: DeviceSpec): BenchmarkOptions {
  const { engine, workload, slo } = settings;
  return {
    engine: {
      model: settings.model,
      backend: settings.backend,
      ...(settings.profile ? { profile: true } : {}),
      ...(settings.backend === 'sim' ? (simDevice ? { deviceSpec: simDevice } : { device: settings.device }) : {}),
      ...(engine.kvBudgetMB > 0 ? { kvMemoryBytes: Math.max(1, Math.round(engine.kvBudgetMB * MiB)) } : {}),
      blockSize: engine.blockSize,
      prefixCaching: engine.prefixCaching,
      scheduler: {
        policy: engine.policy,
        maxBatchedTokens: engine.maxBatchedTokens,
        maxNumSeqs: engine.maxNumSeqs,
        prefillMaxBatch: engine.prefillMaxBatch,
        chunkSize: engine.chunkSize,
        kvReservation: engine.kvReservation,
      },
      seed: workload.seed,
    },
    workload: {
      numRequests: workload.requests,
      promptLength: lengthSpec(workload.promptTokens),
      outputLength: lengthSpec(workload.outputTokens),
      ...(workload.maxNewTokens.max > 0 ? { maxNewTokens: lengthSpec(workload.maxNewTokens) } : {}),
      arrival:
        workload.arrival === 'burst'
          ? { kind: 'burst' }
          : workload.arrival === 'poisson'
            ? { kind: 'poisson', rate: workload.rate }
            : { kind: 'gamma', rate: workload.rate, burstiness: workload.burstiness },
      sharedPrefixLength: workload.sharedPrefix,
      seed: workload.seed,
    },
    warmupRuns: settings.warmup,
    repeatRuns: settings.repeats,
    ...(slo.ttftMs > 0 || slo.tpotMs > 0
      ? { slo: { ...(slo.ttftMs > 0 ? { ttftMs: slo.ttftMs } : {}), ...(slo.tpotMs > 0 ? { tpotMs: slo.tpotMs } : {}) } }
      : {}),
    signal,
  };
}

/** The report's numbers under the lab metric names of metrics.ts; a metric with no data is left out. */
export function metricsFromReport(report: BenchmarkReport): MeasuredMetrics {
  const { metrics: m, kv, scheduler: s } = report;
  const { out, put, family, requestSide } = metricCollector();
  family('add_request', m.addRequestMs);
  family('queue_wait', m.queueWaitMs);
  family('prefill_first', m.prefillToFirstTokenMs);
  requestSide({ ...m, outputTokens: m.completionTokens });
  put('submit_wall', m.submitWallMs);
  put('kv.blocks_total', kv.numBlocks);
  put('kv.blocks_used_peak', kv.peakUsedBlocks);
  put('kv.usage_peak', kv.numBlocks > 0 ? kv.peakUsedBlocks / kv.numBlocks : null);
  put('kv.prefix_hit_rate', kv.prefixHitRate);
  put('kv.wasted_slots_mean', kv.meanWastedSlots);
  put('kv.reserved_blocks_mean', kv.meanReservedBlocks);
  put('kv.used_slots_mean', kv.meanUsedSlots);
  // Only meaningful while something holds memory; an idle pool has no utilisation.
  put('kv.utilization', kv.meanReservedBlocks > 0 ? kv.utilization : null);
  put('kv.fragmentation', kv.meanReservedBlocks > 0 ? kv.fragmentation : null);
  put('scheduler.steps', s.steps);
  put('scheduler.batch_tokens_mean', s.meanBatchTokens);
  put('scheduler.running_mean', s.meanRunning);
  put('scheduler.running_peak', s.maxRunning);
  put('scheduler.waiting_peak', s.maxWaiting);
  put('scheduler.prefill_tokens', s.prefillTokens);
  put('scheduler.decode_tokens', s.decodeTokens);
  put('scheduler.preemptions', s.preemptions);
  put('scheduler.rejected', s.rejected);
  put('scheduler.forward_ms', s.forwardMs);
  put('scheduler.overhead_ms', s.overheadMs);
  Object.assign(out, longPromptMetrics(reportTimelines(report)));
  // In units of the run's own median step, so a load that slows the whole run cancels out.
  const step = m.itlMs.p50;
  if (step > 0) {
    put('itl.spike', m.itlMs.p99 / step);
    put('ttft_long.p50_steps', out['ttft_long.p50'] === undefined ? null : out['ttft_long.p50'] / step);
  }
  put('decode.tokens_per_s', bestDecodeRate(report));
  return out;
}

/**
 * Decode tokens/s of the fastest repeat: running sequences over the median gap between
 * tokens (one decode step). The median shrugs off a hiccup within a run, the best repeat a
 * busy stretch of a shared machine, as the bandwidth and FLOP/s probe does.
 */
function bestDecodeRate(report: BenchmarkReport): number | null {
  const rates = report.runs.flatMap((run) => {
    const step = run.metrics.itlMs.p50;
    return step !== null && Number.isFinite(step) && step > 0 ? [(run.scheduler.maxRunning * 1000) / step] : [];
  });
  return rates.length > 0 ? Math.max(...rates) : null;
}

/** Every measured request's timeline, all repeats pooled. */
export function reportTimelines(report: BenchmarkReport): RequestTimeline[] {
  return report.runs.flatMap((run) => run.timelines ?? []);
}

/**
 * TTFT of the long prompts apart from the short ones, when a workload mixes them (prompts
 * of at least half the longest are long): what chunked prefill trades against ITL.
 */
export function longPromptMetrics(timelines: readonly RequestTimeline[]): MeasuredMetrics {
  const done = timelines.flatMap((t) => {
    const metrics = requestMetrics(t);
    return metrics ? [{ prompt: t.promptTokens, ttft: metrics.ttftMs }] : [];
  });
  if (done.length === 0) return {};
  const longest = largest(done.map((d) => d.prompt));
  const long = done.filter((d) => d.prompt * 2 >= longest).map((d) => d.ttft);
  const short = done.filter((d) => d.prompt * 2 < longest).map((d) => d.ttft);
  if (short.length === 0) return {};
  return { 'ttft_long.p50': percentile(long, 50), 'ttft_long.max': largest(long), 'ttft_short.p95': percentile(short, 95) };
}

/** The largest of many numbers (a spread into Math.max overflows the stack past ~100,000: a sim run of a million requests). */
function largest(values: readonly number[]): number {
  let top = -Infinity;
  for (const value of values) if (value > top) top = value;
  return top;
}

/**
 * Why `backend` surely cannot run on this machine, in the engine's own line (webgpu without a
 * Vulkan driver), or null when it may: asked before a run is stored or anything runs. Dawn is
 * not loaded to ask; an adapter Dawn then fails to find still fails the run itself.
 */
export function backendUnavailable(backend: string): string | null {
  return backend === 'webgpu' ? webgpuUnavailable() : null;
}

/** Runs one benchmark (warm-up + repeats) for one set of settings. */
export async function runBenchmarkPoint(settings: LabSettings, hooks: PointHooks = {}): Promise<PointRun> {
  try {
    const options = benchmarkOptions(settings, hooks.signal, hooks.simDevice);
    if (hooks.traceSteps) options.engine.traceSteps = true;
    if (hooks.onEngineStarted) options.onEngineStarted = hooks.onEngineStarted;
    const report = await runBenchmark(options, (p) =>
      hooks.onProgress?.({ phase: p.phase, run: p.run, runs: p.runs, requestsDone: p.finished, requestsTotal: p.total }),
    );
    // Stopped before any request finished (or failed): nothing was measured, as when stopped
    // during warm-up. Its report would be zeros (0 requests, throughput 0.00 tokens/s) that
    // read as figures and were stored as such. The backend that ran is still known.
    if (report.partial && report.metrics.completed === 0 && report.metrics.failed === 0) {
      return { completed: false, metrics: {}, report: null, table: '', device: report.engine.description ?? report.engine.device, backend: report.engine.backend };
    }
    return {
      completed: !report.partial,
      metrics: metricsFromReport(report),
      report,
      table: formatReport(report, { omitModelAndBackend: true }),
      device: report.engine.description ?? report.engine.device,
      backend: report.engine.backend,
    };
  } catch (error) {
    // Stopped during warm-up: nothing measured, which is a partial run, not a failure.
    if (error instanceof BenchmarkAborted) return { completed: false, metrics: {}, report: null, table: '', device: null, backend: null };
    throw error;
  }
}

/** The engine cpu backend's matmul kernel (SIMD when it can), for the roofline probe. */
export async function engineProbeKernel(): Promise<ProbeKernel> {
  const { availableParallelism } = await import('node:os');
  const { wasmKernelsSupported, wasmKernels } = await import('../engine/index.ts');
  const threads = availableParallelism();
  if (!(await wasmKernelsSupported())) {
    const { matmul } = await import('../engine/index.ts');
    return { matmul, alloc: (n) => new Float32Array(n), threads };
  }
  const { wasm } = await import('../engine/index.ts');
  const pages = 64; // 4 MiB: the probe's arrays fit with room to spare
  const memory = new wasm.Memory({ initial: pages, maximum: pages, shared: true });
  const kernels = wasmKernels(memory);
  let offset = 0;
  const alloc = (n: number) => {
    const array = new Float32Array(memory.buffer, offset, n);
    offset += Math.ceil((n * 4) / 64) * 64;
    return array;
  };
  return { matmul: kernels.matmul, alloc, threads };
}
