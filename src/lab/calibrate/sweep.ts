// The profiling sweep: short waves of requests on a real backend, each shaped so the steps it
// produces cover one corner of the cost model (decode at several batch sizes and context
// lengths, whole prefills of several sizes, chunked prefill mixed with decode). The engine's
// step trace records every step's shape and start; a step's time is the gap to the next.
import { createEngine, type Engine, type EngineOptions, type TracedStep, stepTimes, NAMED_CONFIGS } from '../../engine/index.ts';
import type { StepSample } from './fit.ts';

export interface Wave {
  /** What the wave measures, for the progress bar. */
  label: string;
  requests: number;
  promptTokens: number;
  outputTokens: number;
}

export interface SweepPhase {
  /** Scheduler settings of the engine this phase runs on. */
  chunkSize: number;
  maxBatchedTokens: number;
  prefillMaxBatch: number;
  waves: Wave[];
}

export interface SweepPlan {
  model: string;
  phases: SweepPhase[];
}

export interface SweepProgress {
  wave: string;
  waveIndex: number;
  waves: number;
  requestsDone: number;
  requestsTotal: number;
}

export interface SweepResult {
  samples: StepSample[];
  /** The engine's one-line description of the backend that ran. */
  device: string;
  /** KV pool of the measured engine: what the sim must hold to fill up as it did. */
  kv: { numBlocks: number; blockSize: number; kvBytesPerToken: number };
  steps: number;
  wallMs: number;
  /** Median queue wait of a request reaching an idle engine: the hop from client to scheduler. */
  submitMs: number;
}

/**
 * The waves for a model. Sizes shrink with the model's cost per token so gpt2 (124M) takes
 * about as long as gpt2-tiny; `quick` keeps one point per corner (tests, CI).
 */
export function sweepPlan(model: string, quick: boolean): SweepPlan {
  const config = NAMED_CONFIGS[model];
  if (!config) throw new Error(`unknown model "${model}"; choose one of ${Object.keys(NAMED_CONFIGS).join(', ')}`);
  const big = config.nEmbd * config.nLayer >= 768 * 12;
  const batches = quick ? [1, 8] : big ? [1, 4, 16, 48] : [1, 4, 16, 64, 256];
  const contexts = quick ? [16, 192] : big ? [16, 128, 320] : [16, 160, 448];
  const output = quick ? 10 : 20;
  const decode: Wave[] = [];
  // Big batches only at short contexts: their prefill would dominate the sweep's time.
  for (const b of batches) for (const p of contexts) if (b * p <= (quick ? 2048 : big ? 8192 : 16384)) decode.push({ label: `decode x${b} @${p}`, requests: b, promptTokens: p, outputTokens: output });
  const chunks = quick ? [64] : big ? [32, 128] : [32, 128, 256];
  const longPrompt = Math.min(config.nCtx - 64, quick ? 320 : big ? 512 : 768);
  return {
    model,
    phases: [
      { chunkSize: 0, maxBatchedTokens: 16384, prefillMaxBatch: 256, waves: decode },
      ...chunks.map((chunk) => ({
        chunkSize: chunk,
        maxBatchedTokens: chunk + 32,
        prefillMaxBatch: 4,
        // Long prompts arrive in chunks beside short requests that are already decoding.
        waves: [{ label: `chunks of ${chunk}`, requests: quick ? 6 : 12, promptTokens: longPrompt, outputTokens: output }],
      })),
    ],
  };
}

/** A prompt of `n` token ids drawn from a seeded generator (synthetic weights: values do not matter for time). */
function prompt(n: number, seed: number, vocab: number): number[] {
  let s = seed >>> 0 || 1;
  return Array.from({ length: n }, () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % vocab;
  });
}

/** Runs a wave to the end; returns the queue wait of its first request, which found the engine idle. */
async function runWave(engine: Engine, wave: Wave, seed: number, progress: (done: number) => void): Promise<number | null> {
  const vocab = engine.info.model.vocabSize;
  let done = 0;
  // A chunk wave mixes short requests (decoding soon) with long prompts (prefilled in chunks).
  const handles = Array.from({ length: wave.requests }, (_, i) => {
    const long = wave.label.startsWith('chunks') ? i % 2 === 0 : true;
    const promptTokens = long ? wave.promptTokens : 8;
    return engine.submit({ promptIds: prompt(promptTokens, seed * 1000 + i + 1, vocab), maxNewTokens: long ? wave.outputTokens : wave.outputTokens * 4 });
  });
  await Promise.all(
    handles.map(async (handle) => {
      const result = await handle.done;
      if (result.finishReason === null) throw new Error(`a calibration request failed: ${result.timeline.error}`);
      progress(++done);
    }),
  );
  const first = handles[0].timeline;
  return first.admit === null ? null : first.admit - first.submitEnd;
}

export async function runSweep(
  plan: SweepPlan,
  options: { backend: 'cpu' | 'webgpu'; signal?: AbortSignal; onProgress?: (p: SweepProgress) => void },
): Promise<SweepResult> {
  const started = performance.now();
  const waves = plan.phases.reduce((n, phase) => n + phase.waves.length, 0);
  const samples: StepSample[] = [];
  let device = '';
  let kv: SweepResult['kv'] | null = null;
  let waveIndex = 0;
  let steps = 0;
  const hops: number[] = [];
  for (const phase of plan.phases) {
    if (options.signal?.aborted) break;
    const engineOptions: EngineOptions = {
      model: plan.model,
      backend: options.backend,
      prefixCaching: false,
      traceSteps: true,
      scheduler: { maxBatchedTokens: phase.maxBatchedTokens, maxNumSeqs: 256, prefillMaxBatch: phase.prefillMaxBatch, chunkSize: phase.chunkSize },
    };
    const engine = await createEngine(engineOptions);
    try {
      device = engine.info.description;
      // Every phase runs the default pool, so any phase's is the measured engine's.
      kv ??= { numBlocks: engine.info.numBlocks, blockSize: engine.info.blockSize, kvBytesPerToken: engine.info.kvBytesPerToken };
      // One untimed wave first: JIT, buffer growth and worker start-up are not step costs.
      await runWave(engine, { ...phase.waves[0], label: 'warm-up' }, 0, () => {});
      await engine.stats();
      for (const wave of phase.waves) {
        if (options.signal?.aborted) break;
        const report = (done: number) => options.onProgress?.({ wave: wave.label, waveIndex, waves, requestsDone: done, requestsTotal: wave.requests });
        report(0);
        const hop = await runWave(engine, wave, waveIndex + 1, report);
        if (hop !== null) hops.push(hop);
        const traced: TracedStep[] = (await engine.stats()).steps ?? [];
        steps += traced.length;
        samples.push(...stepTimes(traced));
        waveIndex++;
      }
    } finally {
      await engine.close();
    }
  }
  if (kv === null) throw new Error('calibration was interrupted before any step was measured');
  hops.sort((a, b) => a - b);
  const submitMs = hops.length === 0 ? 0 : hops[hops.length >> 1];
  return { samples, device, kv, steps, wallMs: performance.now() - started, submitMs };
}
