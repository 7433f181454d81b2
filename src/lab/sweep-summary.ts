// A stored sweep's sweep-wide figures as a learner reads them in `kb lab history` and `kb lab
// compare`. Some are positions on the sweep, not quantities: `knee.index 1.00` (the knee's
// place among the points) and `slo.max_x 1.00` (a swept value, with no unit) meant nothing
// in a list of measurements. They are said as the swept value they fall at, with its unit
// ("knee of ttft.p95 at 1x capacity (60.6 req/s)"); `kb lab history --json` keeps them all.
import { formatMetric, isSweepMetric } from './metrics.ts';
import { settingSpec } from './lab-settings.ts';

/** What this file reads of a stored run's settings and result (history.ts's StoredSettings and StoredResult). */
export interface SweptRun {
  sweepKey: string | null;
  sweepMetrics: Record<string, number>;
  chart: { series?: string[]; points?: Array<{ label: string; x: number | null }>; knee?: { x: number; label: string } | null; slo?: { metric: string } | null } | null;
}

/** Sweep-wide metrics said in words (knee, SLO) or beside the swept values (the capacity), not as figures. */
const SAID_IN_WORDS = new Set(['knee.x', 'knee.index', 'slo.limit_ms', 'slo.max_x', 'slo.max_x_fraction', 'load.capacity_rps']);

/** The sweep-wide metrics that are quantities (a fit's exponent, a probed bandwidth): shown as figures with their units. */
export function sweepFigures(names: readonly string[]): string[] {
  return names.filter((name) => isSweepMetric(name) && !SAID_IN_WORDS.has(name));
}

function capacityOf(run: SweptRun): number | null {
  return run.sweepMetrics['load.capacity_rps'] ?? null;
}

/**
 * A swept value with its unit: "16 requests", "1023 tokens", "2x capacity (121 req/s)" for a
 * rate swept relative to the capacity (the rate itself left out with `short`).
 */
export function sweptValueText(run: SweptRun, x: number, short = false): string {
  const label = run.chart?.points?.find((p) => p.x === x)?.label ?? (Number.isInteger(x) ? String(x) : x.toPrecision(3));
  const capacity = capacityOf(run);
  if (capacity !== null) return short ? `${label}x capacity` : `${label}x capacity (${(x * capacity).toPrecision(3)} req/s)`;
  const unit = run.sweepKey === null ? undefined : settingSpec(run.sweepKey)?.unit;
  return unit ? `${label} ${unit}` : `${run.sweepKey ?? 'sweep'} ${label}`;
}

/** The metric the knee and the SLO are found on: the chart's first series. */
function curveOf(run: SweptRun): string | null {
  return run.chart?.slo?.metric ?? run.chart?.series?.[0] ?? null;
}

/** "workload.rate: 0.5, 1, 2, 4 x capacity (60.6 req/s)": the points a sweep ran. */
export function sweptPointsText(run: SweptRun, labels: readonly string[]): string {
  const capacity = capacityOf(run);
  return `${run.sweepKey ?? 'sweep'}: ${labels.join(', ')}${capacity !== null ? ` x capacity (${capacity.toPrecision(3)} req/s)` : ''}`;
}

/** The knee and the SLO in words, one line each, for a run's lines in `kb lab history`. */
export function sweepSentences(run: SweptRun): string[] {
  const m = run.sweepMetrics;
  const curve = curveOf(run);
  const lines: string[] = [];
  if (m['knee.x'] !== undefined) lines.push(`knee${curve ? ` of ${curve}` : ''} at ${sweptValueText(run, m['knee.x'])}`);
  if (m['slo.limit_ms'] !== undefined) {
    const met = m['slo.max_x'] !== undefined ? `met up to ${sweptValueText(run, m['slo.max_x'])}` : 'met at no point';
    lines.push(`SLO ${curve ?? 'limit'} <= ${formatMetric('slo.limit_ms', m['slo.limit_ms'])}, ${met}`);
  }
  return lines;
}

/** One row of a comparison of two sweeps: what, each run's value as text, and the numbers when a change in % means something. */
export interface SweepRow {
  name: string;
  a: string | undefined;
  b: string | undefined;
  values?: [number, number];
}

/**
 * The knee, the SLO and the capacity of two sweeps, in words, for `kb lab compare` and the
 * history's last two runs; `shapes` false: the capacity only (history.ts's shapesNotCompared).
 */
export function sweepWordRows(a: SweptRun, b: SweptRun, shapes = true): SweepRow[] {
  const rows: SweepRow[] = [];
  const both = (name: string) => a.sweepMetrics[name] !== undefined || b.sweepMetrics[name] !== undefined;
  const number = (name: string): [number, number] | undefined => {
    const [x, y] = [a.sweepMetrics[name], b.sweepMetrics[name]];
    return x !== undefined && y !== undefined ? [x, y] : undefined;
  };
  const figure = (run: SweptRun, name: string) => (run.sweepMetrics[name] === undefined ? undefined : formatMetric(name, run.sweepMetrics[name]));
  const swept = (run: SweptRun, name: string) => (run.sweepMetrics[name] === undefined ? undefined : sweptValueText(run, run.sweepMetrics[name], true));
  const curve = curveOf(b) ?? curveOf(a);
  if (both('load.capacity_rps')) rows.push({ name: 'capacity', a: figure(a, 'load.capacity_rps'), b: figure(b, 'load.capacity_rps'), values: number('load.capacity_rps') });
  if (!shapes) return rows;
  if (both('knee.x')) rows.push({ name: `knee${curve ? ` of ${curve}` : ''} at`, a: swept(a, 'knee.x'), b: swept(b, 'knee.x') });
  if (both('slo.limit_ms')) {
    rows.push({ name: `SLO ${curve ?? 'limit'} <=`, a: figure(a, 'slo.limit_ms'), b: figure(b, 'slo.limit_ms'), values: number('slo.limit_ms') });
    const met = (run: SweptRun) => (run.sweepMetrics['slo.limit_ms'] === undefined ? undefined : (swept(run, 'slo.max_x') ?? 'no point'));
    rows.push({ name: 'SLO met up to', a: met(a), b: met(b) });
  }
  return rows;
}

/** What each point's SLO figures count, in words: named after a limit the learner never set, they need saying. */
const POINT_MEANINGS: Record<string, string> = {
  'slo.met_fraction': "share of the point's requests whose TTFT met the SLO",
  'slo.goodput_rps': 'requests/s whose TTFT met the SLO',
};

/** "where slo.met_fraction = share of the point's requests whose TTFT met the SLO", for each such metric among `names`. */
export function meaningLines(names: Iterable<string>, indent = '  '): string[] {
  return [...new Set(names)].filter((name) => POINT_MEANINGS[name] !== undefined).map((name) => `${indent}where ${name} = ${POINT_MEANINGS[name]}`);
}
