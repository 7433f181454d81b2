// Devices the sim backend can stand in for. Peak and bandwidth are the vendors' datasheet
// figures (dense 16-bit tensor math, HBM/GDDR bandwidth); real kernels reach a fraction of
// them, which `efficiency` scales. `stepOverheadMs` is the fixed cost a serving loop pays per
// step outside the kernels (scheduling, launches, sampling, host sync). A calibrated or
// published profile carries `fitted` terms instead: then a step costs what they say.
import type { CostTerms } from './cost-terms.ts';
import type { SizedSpread } from './step-spread.ts';

export interface DeviceSpec {
  name: string;
  /** Peak FLOP/s. */
  peakFlops: number;
  /** Memory bandwidth, bytes/s. */
  bandwidth: number;
  /** Device memory, bytes (sizes the default KV pool). */
  memoryBytes: number;
  /** Bytes per weight and per K/V element. */
  dtypeBytes: number;
  /** Fraction of peak compute and bandwidth real kernels reach. */
  efficiency: number;
  stepOverheadMs: number;
  /** Per-step terms fitted to measured steps; when present they replace the roofline. */
  fitted?: CostTerms;
  /** Memory held back from weights + KV (activations, runtime); default: 10% of memoryBytes. */
  reserveBytes?: number;
  /** Bytes of weights the device holds; default: the model's weight count x dtypeBytes. */
  weightBytes?: number;
  /**
   * ms from a client's submit until the scheduler can see the request (the hop to the engine's
   * thread or process); 0 when absent. Measured by calibration: an idle engine's queue wait.
   */
  submitMs?: number;
  /**
   * Measured step time / fitted step time at quantiles 0%, 1%, ..., 100%, by size of step
   * (step-spread.ts): each simulated step's time is scaled by a seeded draw from its size's
   * table. Absent: every step takes its cost.
   */
  stepSpread?: readonly SizedSpread[];
}

const GiB = 1024 ** 3;
// Achieved fractions that well-tuned serving kernels report on these parts, and a per-step
// loop cost typical of a Python engine with CUDA graphs.
const TYPICAL_EFFICIENCY = 0.7;
const TYPICAL_STEP_OVERHEAD_MS = 1;

export const namedDevices: Record<string, DeviceSpec> = {
  'A100-40GB': {
    name: 'A100-40GB',
    peakFlops: 312e12,
    bandwidth: 1555e9,
    memoryBytes: 40 * GiB,
    dtypeBytes: 2,
    efficiency: TYPICAL_EFFICIENCY,
    stepOverheadMs: TYPICAL_STEP_OVERHEAD_MS,
  },
  'A100-80GB': {
    name: 'A100-80GB',
    peakFlops: 312e12,
    bandwidth: 2039e9,
    memoryBytes: 80 * GiB,
    dtypeBytes: 2,
    efficiency: TYPICAL_EFFICIENCY,
    stepOverheadMs: TYPICAL_STEP_OVERHEAD_MS,
  },
  H100: {
    name: 'H100 SXM',
    peakFlops: 989e12,
    bandwidth: 3350e9,
    memoryBytes: 80 * GiB,
    dtypeBytes: 2,
    efficiency: TYPICAL_EFFICIENCY,
    stepOverheadMs: TYPICAL_STEP_OVERHEAD_MS,
  },
  L4: {
    name: 'L4',
    peakFlops: 121e12,
    bandwidth: 300e9,
    memoryBytes: 24 * GiB,
    dtypeBytes: 2,
    efficiency: TYPICAL_EFFICIENCY,
    stepOverheadMs: TYPICAL_STEP_OVERHEAD_MS,
  },
};

export const THIS_CPU = 'this-cpu';

/** Figures of this machine, measured by the caller (e.g. bench/), for the `this-cpu` device. */
export interface MeasuredCpu {
  peakFlops: number;
  bandwidth: number;
  memoryBytes: number;
  stepOverheadMs: number;
}

export function deviceNames(): string[] {
  return [...Object.keys(namedDevices), THIS_CPU];
}

export function resolveDevice(name: string, measured?: MeasuredCpu): DeviceSpec {
  if (name === THIS_CPU) {
    if (!measured) throw new Error(`device ${THIS_CPU} needs this machine's measured peak, bandwidth and memory`);
    // The cpu backend computes in fp32 and its figures are already what it achieves.
    return { name: THIS_CPU, dtypeBytes: 4, efficiency: 1, ...measured };
  }
  const spec = namedDevices[name];
  if (!spec) throw new Error(`unknown device "${name}"; known: ${deviceNames().join(', ')}`);
  return spec;
}
