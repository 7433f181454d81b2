// The names a lab's `expect:` checks may use: one flat catalogue of measured numbers,
// snake_case, with units. The run turns the engine's benchmark report into these names
// (run.ts); checks and history read only these.

export interface LabMetricInfo {
  name: string;
  unit: string;
  describe: string;
  /** 'sweep': one number for the whole sweep (a fit, a knee), read without `@point`. */
  scope?: 'point' | 'sweep';
}

/** The timing distributions of the report, each with p50/p95/p99 and mean, in ms. */
export const latencyFamilies = [
  ['add_request', 'time inside submit()'],
  ['queue_wait', 'admit - submit_end'],
  ['prefill_first', 'first_token - admit (prefill->first token)'],
  ['ttft', 'first_token - submit_start'],
  ['tpot', '(finish - first_token) / (output tokens - 1)'],
  ['itl', 'gaps between consecutive tokens, pooled'],
  ['latency', 'finish - submit_start'],
] as const;
export const percentileNames = ['p50', 'p95', 'p99', 'mean'] as const;

const scalarMetrics: LabMetricInfo[] = [
  { name: 'requests', unit: '', describe: 'requests measured (all repeats)' },
  { name: 'requests_failed', unit: '', describe: 'requests rejected or failed' },
  { name: 'prompt_tokens', unit: 'tokens', describe: 'prompt tokens, total' },
  { name: 'output_tokens', unit: 'tokens', describe: 'completion tokens, total' },
  { name: 'submit_wall', unit: 'ms', describe: 'time to submit every request' },
  { name: 'duration', unit: 's', describe: 'first submit to last finish' },
  { name: 'throughput.output_tps', unit: 'tokens/s', describe: 'output tokens per second' },
  { name: 'throughput.total_tps', unit: 'tokens/s', describe: 'prompt + output tokens per second' },
  { name: 'throughput.requests_per_s', unit: 'req/s', describe: 'finished requests per second' },
  { name: 'goodput.requests_per_s', unit: 'req/s', describe: 'requests/s meeting every SLO (slo.* settings)' },
  { name: 'kv.blocks_total', unit: 'blocks', describe: 'blocks in the KV pool' },
  { name: 'kv.blocks_used_peak', unit: 'blocks', describe: 'most blocks in use at once' },
  { name: 'kv.usage_peak', unit: '', describe: 'peak used / total blocks' },
  { name: 'kv.prefix_hit_rate', unit: '', describe: 'prompt tokens served from the prefix cache / prompt tokens looked up' },
  { name: 'kv.wasted_slots_mean', unit: 'slots', describe: 'slots held but not filled, mean over steps' },
  { name: 'kv.reserved_blocks_mean', unit: 'blocks', describe: 'blocks held by running sequences, mean over steps' },
  { name: 'kv.used_slots_mean', unit: 'slots', describe: 'token slots holding K/V, mean over steps' },
  { name: 'kv.utilization', unit: '', describe: 'slots holding K/V / slots in held blocks, over all steps' },
  { name: 'kv.fragmentation', unit: '', describe: '1 - kv.utilization: held memory that holds nothing' },
  { name: 'scheduler.steps', unit: '', describe: 'engine steps' },
  { name: 'scheduler.batch_tokens_mean', unit: 'tokens', describe: 'tokens per step, mean' },
  { name: 'scheduler.running_mean', unit: 'seqs', describe: 'running sequences per step, mean' },
  { name: 'scheduler.running_peak', unit: 'seqs', describe: 'most running sequences in one step' },
  { name: 'scheduler.waiting_peak', unit: 'seqs', describe: 'most requests waiting for admission' },
  { name: 'scheduler.prefill_tokens', unit: 'tokens', describe: 'prompt tokens computed (cache hits excluded)' },
  { name: 'scheduler.decode_tokens', unit: 'tokens', describe: 'decode tokens computed' },
  { name: 'scheduler.preemptions', unit: '', describe: 'sequences preempted for lack of blocks' },
  { name: 'scheduler.rejected', unit: '', describe: 'requests rejected (could never fit)' },
  { name: 'scheduler.forward_ms', unit: 'ms', describe: 'time in forward passes (engine clock)' },
  { name: 'scheduler.overhead_ms', unit: 'ms', describe: 'host time scheduling and bookkeeping' },
  { name: 'ttft_long.p50', unit: 'ms', describe: 'TTFT p50 of the long prompts (at least half the longest, when shorter ones are mixed in)' },
  { name: 'ttft_long.max', unit: 'ms', describe: 'TTFT of the slowest long prompt' },
  { name: 'ttft_short.p95', unit: 'ms', describe: 'TTFT p95 of the other (short) prompts' },
  { name: 'itl.spike', unit: '', describe: 'ITL p99 / ITL p50: the worst 1% of gaps in median steps (a machine-wide slowdown cancels out)' },
  { name: 'ttft_long.p50_steps', unit: 'steps', describe: 'ttft_long.p50 / ITL p50: the long prompts\' TTFT in median steps' },
  { name: 'decode.tokens_per_s', unit: 'tokens/s', describe: 'decode throughput: running sequences / ITL p50 (one decode step), the best repeat' },
  { name: 'slo.met_fraction', unit: '', describe: 'share of requests whose TTFT meets the chart\'s scaled SLO' },
  { name: 'slo.goodput_rps', unit: 'req/s', describe: 'requests/s meeting the chart\'s scaled SLO' },
  { name: 'roofline.step_ms', unit: 'ms', describe: 'predicted decode step time: max(bytes / bandwidth, FLOPs / FLOP/s), probed in the same run' },
  { name: 'roofline.decode_tps', unit: 'tokens/s', describe: 'predicted decode throughput: running sequences / predicted step time' },
];

/** One number per sweep, computed across its points (chart.ts options of the lab file). */
const sweepMetrics: LabMetricInfo[] = [
  { name: 'fit.exponent', unit: '', describe: 'k of y = a * x^k fitted to the chart\'s first series over every point measured' },
  { name: 'fit.exponent_low', unit: '', describe: 'k fitted over the lower half of the points' },
  { name: 'fit.exponent_high', unit: '', describe: 'k fitted over the upper half of the points' },
  // A difference, not a ratio: on a flat curve both halves fit k near 0, and their ratio is noise (0.002 / 0.0002 = 10).
  { name: 'fit.exponent_rise', unit: '', describe: 'fit.exponent_high - fit.exponent_low: how much steeper the upper half grows' },
  { name: 'slo.limit_ms', unit: 'ms', describe: 'the scaled SLO: chart.slo.scale x chart.slo.of at the first point' },
  { name: 'slo.max_x', unit: '', describe: 'the highest swept value, from the lowest up, whose first series stays within the SLO' },
  { name: 'slo.max_x_fraction', unit: '', describe: 'slo.max_x / the highest swept value' },
  { name: 'knee.x', unit: '', describe: 'the swept value where the chart\'s first series bends most (furthest from the chord)' },
  { name: 'knee.index', unit: '', describe: 'the knee\'s position among the points, 0-based' },
  { name: 'load.capacity_rps', unit: 'req/s', describe: 'requests/s a burst of the workload achieved, measured before a sweep relative to capacity' },
  { name: 'probe.bandwidth_gbs', unit: 'GB/s', describe: 'memory read bandwidth measured in the same run' },
  { name: 'probe.gflops', unit: 'GFLOP/s', describe: 'matmul FLOP/s measured in the same run (all engine threads)' },
  { name: 'roofline.ridge_batch', unit: 'seqs', describe: 'running sequences where predicted compute time overtakes weight reading' },
  { name: 'roofline.measured_over_predicted', unit: '', describe: 'measured / predicted decode throughput, geometric mean over the points' },
];

export const labMetricCatalogue: readonly LabMetricInfo[] = [
  ...latencyFamilies.flatMap(([family, describe]) =>
    percentileNames.map((p) => ({ name: `${family}.${p}`, unit: family === 'tpot' ? 'ms/token' : 'ms', describe: `${describe}, ${p}` })),
  ),
  ...scalarMetrics,
  ...sweepMetrics.map((info) => ({ ...info, scope: 'sweep' as const })),
];

/**
 * Series over the time of a run, one value per sample of the engine's KV usage series (at
 * most 200 per run): what a `chart: { kind: time }` draws, one line per sweep point. Each
 * also has a point metric, its mean over the run's steps (`summary`).
 */
export const timeSeriesCatalogue = [
  { name: 'usage.utilization', field: 'utilization', unit: '', summary: 'kv.utilization', describe: 'slots holding K/V / slots in held blocks' },
  { name: 'usage.running', field: 'running', unit: 'seqs', summary: 'scheduler.running_mean', describe: 'running sequences' },
  { name: 'usage.reserved_blocks', field: 'reservedBlocks', unit: 'blocks', summary: 'kv.reserved_blocks_mean', describe: 'KV blocks held' },
  { name: 'usage.used_slots', field: 'usedSlots', unit: 'slots', summary: 'kv.used_slots_mean', describe: 'token slots holding K/V' },
] as const;

export type TimeSeriesInfo = (typeof timeSeriesCatalogue)[number];

export function timeSeriesInfo(name: string): TimeSeriesInfo | undefined {
  return timeSeriesCatalogue.find((info) => info.name === name);
}

const byName = new Map(labMetricCatalogue.map((info) => [info.name, info]));

export function isLabMetric(name: string): boolean {
  return byName.has(name);
}

export function labMetricInfo(name: string): LabMetricInfo | undefined {
  return byName.get(name);
}

/** A metric of the whole sweep rather than of one point. */
export function isSweepMetric(name: string): boolean {
  return byName.get(name)?.scope === 'sweep';
}

/**
 * A sweep-wide figure drawn from the shape of the whole curve (a fit, the knee, the SLO limit
 * and the highest swept value within it): over a subset of the points it is another curve's.
 */
export function isSweepShapeMetric(name: string): boolean {
  return isSweepMetric(name) && (name.startsWith('fit.') || name.startsWith('knee.') || name === 'slo.limit_ms' || name.startsWith('slo.max_x'));
}

export function labMetricNames(): string[] {
  return labMetricCatalogue.map((info) => info.name);
}

/** A measured value with its unit, as a check's verdict shows it ("513.3 ms", "0.96"). */
/** Counts of requests: whole numbers, shown as such (compare read "requests_failed 0.000 -> 60.00"). */
const COUNT_METRICS = new Set(['requests', 'requests_failed']);

export function formatMetric(name: string, value: number): string {
  if (COUNT_METRICS.has(name) && Number.isInteger(value)) return String(value);
  const unit = byName.get(name)?.unit ?? '';
  const digits = Math.abs(value) >= 100 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  return unit ? `${value.toFixed(digits)} ${unit}` : value.toFixed(digits);
}

/**
 * A check's measured value, as the report, `kb lab compare` and a card's lab panel all show it:
 * a ratio to three places ("0.091"; compare said 0.0907), a metric (at a point) with its unit.
 */
export function formatMeasured(check: string, value: number): string {
  return check.includes('/') ? value.toFixed(3) : formatMetric(check.split('@')[0].trim(), value);
}
