// What a sweep shows as a whole, computed from its points: a power-law fit of the chart's
// first series, an SLO scaled to this machine and the highest swept value that meets it, the
// knee of the curve, and a roofline prediction from the bandwidth and FLOP/s probed in the
// run. The results are metrics like any other (the sweep ones in metrics.ts), so `expect:`
// checks can state the phenomenon with them, and the chart data is kept with the run.
import type { MeasuredMetrics } from './checks.ts';
import { requestMetrics, type RequestTimeline, weightCount, NAMED_CONFIGS, type UsageSample } from '../engine/index.ts';
import type { LabChart } from './lab-file.ts';
import type { MachineProbe } from './machine-probe.ts';
import { timeSeriesInfo } from './metrics.ts';
import { getSetting, type LabSettings } from './lab-settings.ts';

export interface AnalysedPoint {
  label: string;
  /** Where the point sits on the x axis when it is not the swept setting itself (a relative rate). */
  x?: number;
  settings: LabSettings;
  metrics: MeasuredMetrics;
  timelines: readonly RequestTimeline[];
  /** The run's KV usage over time (a time chart draws it). */
  usage?: readonly UsageSample[];
}

/** Everything the chart needs, JSON-safe (kept with the run, printed with --json). */
export interface ChartData {
  kind: 'bars' | 'line' | 'time';
  xKey: string;
  logX: boolean;
  series: string[];
  points: Array<{ label: string; x: number | null; values: Record<string, number | null> }>;
  /** `points`: how many points it was fitted over (a --points run may have measured two); runs stored before it have none. */
  fit: { a: number; k: number; kLow: number | null; kHigh: number | null; points?: number } | null;
  slo: { metric: string; limitMs: number; maxX: number | null } | null;
  knee: { x: number; label: string } | null;
  probe: { bandwidthGBs: number; gflops: number; threads: number; ridgeBatch: number } | null;
  /** kind 'time': each `series` metric over each point's run, x in seconds from the run's start. */
  overTime?: Array<{ metric: string; label: string; points: Array<{ x: number; y: number }> }>;
}

export interface SweepAnalysis {
  /** Extra metrics of each point, by label (merged into the point's metrics). */
  pointMetrics: Map<string, MeasuredMetrics>;
  sweep: MeasuredMetrics;
  chart: ChartData;
}

/** The swept value as a number (a length's longest), or null for a value that is not one. */
export function sweptNumber(settings: LabSettings, key: string): number | null {
  const value = getSetting(settings, key);
  if (typeof value === 'number') return value;
  if (typeof value === 'object') return value.max;
  return null;
}

/** Least squares on log y = log a + k log x; null with fewer than two usable points. */
export function fitPowerLaw(points: ReadonlyArray<{ x: number; y: number }>): { a: number; k: number } | null {
  const usable = points.filter((p) => p.x > 0 && p.y > 0);
  if (usable.length < 2) return null;
  const lx = usable.map((p) => Math.log(p.x));
  const ly = usable.map((p) => Math.log(p.y));
  const mx = lx.reduce((s, v) => s + v, 0) / lx.length;
  const my = ly.reduce((s, v) => s + v, 0) / ly.length;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < lx.length; i++) {
    sxy += (lx[i] - mx) * (ly[i] - my);
    sxx += (lx[i] - mx) ** 2;
  }
  if (sxx === 0) return null;
  const k = sxy / sxx;
  return { a: Math.exp(my - k * mx), k };
}

/**
 * The knee: the point furthest from the straight line joining the first and last points,
 * with both axes scaled to [0, 1] (x on a log scale when the chart is). Null under 3 points.
 */
export function findKnee(points: ReadonlyArray<{ x: number; y: number }>, logX: boolean): number | null {
  if (points.length < 3) return null;
  const xs = points.map((p) => (logX ? Math.log(p.x) : p.x));
  const ys = points.map((p) => p.y);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (x1 === x0 || y1 === y0) return null;
  const nx = xs.map((x) => (x - x0) / (x1 - x0));
  const ny = ys.map((y) => (y - y0) / (y1 - y0));
  const last = points.length - 1;
  const dx = nx[last] - nx[0];
  const dy = ny[last] - ny[0];
  const norm = Math.hypot(dx, dy);
  let best = -1;
  let index: number | null = null;
  for (let i = 1; i < last; i++) {
    const distance = Math.abs(dy * (nx[i] - nx[0]) - dx * (ny[i] - ny[0])) / norm;
    if (distance > best) {
      best = distance;
      index = i;
    }
  }
  return index;
}

/**
 * A decode step's predicted time on this machine: every weight read once (fp32), each
 * sequence's KV read, against 2 FLOPs per weight per sequence plus attention; whichever of
 * memory and arithmetic takes longer sets the time.
 */
export function rooflineStepMs(settings: LabSettings, running: number, probe: MachineProbe): number | null {
  const config = NAMED_CONFIGS[settings.model];
  if (!config || running <= 0) return null;
  const w = settings.workload;
  const meanPrompt = w.promptTokens.values ? w.promptTokens.values.reduce((s, v) => s + v, 0) / w.promptTokens.values.length : (w.promptTokens.min + w.promptTokens.max) / 2;
  const context = meanPrompt + (w.outputTokens.min + w.outputTokens.max) / 4;
  const weights = weightCount(config);
  const kvBytesPerToken = 2 * config.nLayer * config.nEmbd * 4;
  const bytes = weights * 4 + running * context * kvBytesPerToken;
  const flops = running * (2 * weights + 4 * config.nLayer * config.nEmbd * context);
  return Math.max(bytes / probe.bandwidth, flops / probe.flops) * 1000;
}

/** Requests whose TTFT is within the limit: their share, and their rate over the run. */
function sloMet(timelines: readonly RequestTimeline[], limitMs: number, durationS: number | undefined): { fraction: number; rps: number | null } {
  const ttfts = timelines.map((t) => requestMetrics(t)?.ttftMs ?? null);
  const met = ttfts.filter((v) => v !== null && v <= limitMs).length;
  return { fraction: timelines.length > 0 ? met / timelines.length : 0, rps: durationS && durationS > 0 ? met / durationS : null };
}

/** A time chart: every series of every point, and as the points' values each series' mean over the steps. */
function analyseOverTime(chart: LabChart, xKey: string, points: readonly AnalysedPoint[]): SweepAnalysis {
  const overTime = chart.y.flatMap((metric) => {
    const info = timeSeriesInfo(metric);
    if (!info) return [];
    return points.map((p) => ({ metric, label: p.label, points: (p.usage ?? []).map((u) => ({ x: u.timeMs / 1000, y: u[info.field] })) }));
  });
  return {
    pointMetrics: new Map(points.map((p) => [p.label, {}])),
    sweep: {},
    chart: {
      kind: 'time',
      xKey,
      logX: false,
      series: chart.y,
      points: points.map((p) => ({
        label: p.label,
        x: null,
        values: Object.fromEntries(chart.y.map((m) => [m, p.metrics[timeSeriesInfo(m)?.summary ?? ''] ?? null])),
      })),
      fit: null,
      slo: null,
      knee: null,
      probe: null,
      overTime,
    },
  };
}

export function analyseSweep(chart: LabChart, xKey: string, points: readonly AnalysedPoint[], probe: MachineProbe | null): SweepAnalysis {
  if (chart.kind === 'time') return analyseOverTime(chart, xKey, points);
  const pointMetrics = new Map<string, MeasuredMetrics>(points.map((p) => [p.label, {}]));
  const sweep: MeasuredMetrics = {};
  const xs = points.map((p) => (chart.kind === 'line' ? (p.x ?? sweptNumber(p.settings, xKey)) : null));
  const value = (i: number, metric: string) => pointMetrics.get(points[i].label)?.[metric] ?? points[i].metrics[metric] ?? null;

  let probeData: ChartData['probe'] = null;
  if (chart.roofline && probe) {
    const ratios: number[] = [];
    points.forEach((p, i) => {
      const running = p.metrics['scheduler.running_peak'] ?? 0;
      const stepMs = rooflineStepMs(p.settings, running, probe);
      if (stepMs === null) return;
      const extra = pointMetrics.get(p.label)!;
      extra['roofline.step_ms'] = stepMs;
      extra['roofline.decode_tps'] = (running * 1000) / stepMs;
      const measured = value(i, 'decode.tokens_per_s');
      if (measured !== null && measured > 0) ratios.push(measured / extra['roofline.decode_tps']);
    });
    const config = NAMED_CONFIGS[points[0]?.settings.model ?? ''];
    // Compute time 2W*B/F equals weight reading 4W/BW at B = 2F/BW (KV reads left out).
    const ridgeBatch = (2 * probe.flops) / probe.bandwidth;
    sweep['probe.bandwidth_gbs'] = probe.bandwidth / 1e9;
    sweep['probe.gflops'] = probe.flops / 1e9;
    if (config) sweep['roofline.ridge_batch'] = ridgeBatch;
    if (ratios.length > 0) sweep['roofline.measured_over_predicted'] = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
    probeData = { bandwidthGBs: probe.bandwidth / 1e9, gflops: probe.flops / 1e9, threads: probe.threads, ridgeBatch };
  }

  let slo: ChartData['slo'] = null;
  if (chart.slo && points.length > 0) {
    const base = points[0].metrics[chart.slo.of];
    if (base !== undefined && base > 0) {
      const limitMs = chart.slo.scale * base;
      sweep['slo.limit_ms'] = limitMs;
      points.forEach((p) => {
        const met = sloMet(p.timelines, limitMs, p.metrics.duration);
        pointMetrics.get(p.label)!['slo.met_fraction'] = met.fraction;
        if (met.rps !== null) pointMetrics.get(p.label)!['slo.goodput_rps'] = met.rps;
      });
      let maxX: number | null = null;
      for (let i = 0; i < points.length; i++) {
        const y = value(i, chart.y[0]);
        if (y === null || y > limitMs || xs[i] === null) break;
        maxX = xs[i];
      }
      if (maxX !== null) {
        sweep['slo.max_x'] = maxX;
        const top = Math.max(...xs.filter((x): x is number => x !== null));
        sweep['slo.max_x_fraction'] = maxX / top;
      }
      slo = { metric: chart.y[0], limitMs, maxX };
    }
  }

  const firstSeries = points.flatMap((_, i) => {
    const y = value(i, chart.y[0]);
    return xs[i] !== null && y !== null ? [{ x: xs[i]!, y }] : [];
  });
  let fit: ChartData['fit'] = null;
  if (chart.fit === 'power') {
    const all = fitPowerLaw(firstSeries);
    if (all) {
      const half = Math.ceil(firstSeries.length / 2);
      const low = firstSeries.length >= 4 ? fitPowerLaw(firstSeries.slice(0, half)) : null;
      const high = firstSeries.length >= 4 ? fitPowerLaw(firstSeries.slice(firstSeries.length - half)) : null;
      sweep['fit.exponent'] = all.k;
      if (low) sweep['fit.exponent_low'] = low.k;
      if (high) sweep['fit.exponent_high'] = high.k;
      if (low && high) sweep['fit.exponent_rise'] = high.k - low.k;
      fit = { a: all.a, k: all.k, kLow: low?.k ?? null, kHigh: high?.k ?? null, points: firstSeries.length };
    }
  }
  let knee: ChartData['knee'] = null;
  if (chart.knee) {
    const index = findKnee(firstSeries, chart.logX);
    if (index !== null) {
      sweep['knee.x'] = firstSeries[index].x;
      sweep['knee.index'] = index;
      knee = { x: firstSeries[index].x, label: points[xs.indexOf(firstSeries[index].x)]?.label ?? String(firstSeries[index].x) };
    }
  }

  return {
    pointMetrics,
    sweep,
    chart: {
      kind: chart.kind,
      xKey,
      logX: chart.logX,
      series: chart.y,
      points: points.map((p, i) => ({ label: p.label, x: xs[i], values: Object.fromEntries(chart.y.map((m) => [m, value(i, m)])) })),
      fit,
      slo,
      knee,
      probe: probeData,
    },
  };
}
