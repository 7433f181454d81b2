// `kb lab calibrate`: the profiling sweep on a real backend, the fit, and the device profile
// it makes (fitted terms, the KV capacity of the engine that was measured, the fit's errors).
import { weightCount, NAMED_CONFIGS } from '../../engine/index.ts';
import { type DeviceProfile, PROFILE_FORMAT } from '../devices/device-profile.ts';
import { machineLoadNow } from '../step-cost-check.ts';
import { type CostFit, fitCostTerms } from './fit.ts';
import { runSweep, type SweepProgress, type SweepResult, sweepPlan } from './sweep.ts';

export interface CalibrateOptions {
  model: string;
  backend: 'cpu' | 'webgpu';
  name: string;
  /** One point per corner of the sweep: seconds, not minutes (tests, CI). */
  quick: boolean;
  signal?: AbortSignal;
  onProgress?(progress: SweepProgress): void;
  /** The date stamped on the profile (tests pass a fixed one). */
  now?: Date;
}

export interface Calibration {
  profile: DeviceProfile;
  fit: CostFit;
  sweep: SweepResult;
}

/** Both backends keep weights and K/V as fp32. */
const FP32 = 4;

export async function calibrate(options: CalibrateOptions): Promise<Calibration> {
  const plan = sweepPlan(options.model, options.quick);
  // Taken before the sweep's own threads count in it: what else was running.
  const load = machineLoadNow();
  const sweep = await runSweep(plan, { backend: options.backend, signal: options.signal, onProgress: options.onProgress });
  const fit = fitCostTerms(sweep.samples);
  const config = NAMED_CONFIGS[options.model];
  const weightBytes = weightCount(config) * FP32;
  // The measured engine's pool, as the memory it implies: the sim then holds exactly as many blocks.
  const poolBytes = sweep.kv.numBlocks * sweep.kv.blockSize * sweep.kv.kvBytesPerToken;
  const profile: DeviceProfile = {
    format: PROFILE_FORMAT,
    name: options.name,
    model: options.model,
    source: { kind: 'calibrated', backend: options.backend, device: sweep.device, at: (options.now ?? new Date()).toISOString(), steps: sweep.steps, wallMs: Math.round(sweep.wallMs), load },
    terms: fit.terms,
    submitMs: sweep.submitMs,
    spread: fit.spread,
    spreadBySize: fit.spreadBySize,
    kv: { memoryBytes: poolBytes + weightBytes, weightBytes, reserveBytes: 0, dtypeBytes: FP32 },
    fit: { r2: fit.r2, byKind: fit.byKind, kept: fit.kept, outliers: fit.outliers },
  };
  return { profile, fit, sweep };
}
