// A sweep's chart data (analysis.ts) drawn as text: bars for a categorical sweep, a line
// chart for a numeric one with its fit, SLO line and knee.
import type { ChartData } from './analysis.ts';
import { barChart, lineChart, type LineSeries } from './chart.ts';
import { formatMetric, labMetricInfo } from './metrics.ts';
import { sweptValueText, type SweptRun } from './sweep-summary.ts';

const markers = ['●', '○', '◆', '▲'];

function titleOf(metric: string): string {
  const unit = labMetricInfo(metric)?.unit;
  return unit ? `${metric} (${unit})` : metric;
}

function formatX(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toPrecision(3);
}

/** Round tick values from 0 to just past `max`: 0, 0.5, 1, ... or 0, 2, 4, ... */
function ticks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  return Array.from({ length: Math.floor(max / step + 1e-9) + 1 }, (_, i) => Number((i * step).toPrecision(6)));
}

/** A time chart: one line chart per series, one line per point of the sweep, against seconds into the run. */
function timeChartLines(data: ChartData): string[] {
  const lines: string[] = [];
  for (const metric of data.series) {
    const runs = (data.overTime ?? []).filter((s) => s.metric === metric);
    const fraction = metric === 'usage.utilization';
    const end = Math.max(0, ...runs.flatMap((r) => r.points.map((p) => p.x)));
    if (lines.length > 0) lines.push('');
    lines.push(
      ...lineChart({
        series: runs.map((r, i) => ({ name: `${data.xKey}=${r.label}`, marker: markers[i % markers.length], points: r.points })),
        xLabels: ticks(end).map((x) => ({ x, label: formatX(x) })),
        xTitle: 'seconds into the run',
        yTitle: fraction ? `${metric} (%)` : titleOf(metric),
        ...(fraction ? { formatY: (y: number) => `${(y * 100).toFixed(0)}%`, yCeiling: 1 } : { formatY: countLabel(runs) }),
      }),
    );
    const means = data.points.map((p) => {
      const value = p.values[metric];
      return `${p.label} ${value === null || value === undefined ? 'not measured' : fraction ? `${(value * 100).toFixed(1)}%` : value.toFixed(1)}`;
    });
    lines.push(`  Mean over the steps: ${means.join(', ')}`);
  }
  return lines;
}

/**
 * The other series count things (sequences, blocks, slots): whole numbers on an axis of ten or
 * more (paged-kv's running axis read 16.8 and 9.16 sequences), a tenth below that, where a
 * row spans less than one.
 */
function countLabel(runs: { points: { y: number }[] }[]): (y: number) => string {
  const top = Math.max(0, ...runs.flatMap((r) => r.points.map((p) => p.y)));
  return top >= 10 ? (y) => String(Math.round(y)) : (y) => y.toFixed(1);
}

/**
 * The figures a line chart draws, a row per point: a dot on a 12-row chart is no figure to
 * quote, and batch-size-sweep's decode.tokens_per_s and roofline were printed nowhere else.
 */
function figureTable(data: ChartData): string[] {
  const header = [data.xKey, ...data.series];
  const rows = data.points.map((p) => [
    p.label,
    ...data.series.map((metric) => {
      const value = p.values[metric];
      return value === null || value === undefined ? 'not measured' : formatMetric(metric, value);
    }),
  ]);
  const widths = header.map((title, c) => Math.max(title.length, ...rows.map((row) => row[c].length)));
  // The swept value left-aligned, the figures right-aligned under their metric's name.
  const line = (cells: string[]) => `  ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')}`.trimEnd();
  return [line(header), ...rows.map(line)];
}

/** `run`: the sweep's key and figures (the capacity), to say the SLO's reach as a swept value with its unit. */
export function chartLines(data: ChartData, run?: SweptRun): string[] {
  if (data.kind === 'time') return timeChartLines(data);
  if (data.kind === 'bars') {
    return barChart(
      data.series.map((metric) => ({
        title: titleOf(metric),
        bars: data.points.map((p) => {
          const value = p.values[metric];
          return { label: `${data.xKey}=${p.label}`, value: value ?? 0, text: value === null || value === undefined ? 'not measured' : formatMetric(metric, value) };
        }),
      })),
    );
  }
  const series: LineSeries[] = data.series.map((metric, i) => ({
    name: metric,
    marker: markers[i % markers.length],
    points: data.points.flatMap((p) => {
      const y = p.values[metric];
      return p.x !== null && y !== null && y !== undefined ? [{ x: p.x, y }] : [];
    }),
  }));
  const units = [...new Set(data.series.map((m) => labMetricInfo(m)?.unit ?? ''))].filter(Boolean);
  const fit = data.fit;
  const lines = lineChart({
    series,
    curve: fit ? { name: `fit ${fit.a.toPrecision(3)} * x^${fit.k.toFixed(2)}`, at: (x) => fit.a * x ** fit.k } : undefined,
    limit: data.slo ? { name: `SLO ${formatMetric('slo.limit_ms', data.slo.limitMs)}`, y: data.slo.limitMs } : undefined,
    knee: data.knee ? { name: `knee at ${data.knee.label}`, x: data.knee.x } : undefined,
    logX: data.logX,
    xLabels: data.points.flatMap((p) => (p.x === null ? [] : [{ x: p.x, label: p.label }])),
    xTitle: data.xKey,
    yTitle: units.length === 1 ? units[0] : data.series.join(', '),
  });
  const notes: string[] = [...figureTable(data)];
  if (fit) {
    const halves = fit.kLow !== null && fit.kHigh !== null ? `; lower half ${fit.kLow.toFixed(2)}, upper half ${fit.kHigh.toFixed(2)}` : '';
    // "over every point" read, after a --points 16,32 run, as a fit to the whole curve.
    notes.push(`  Growth exponent (y ~ x^k): k = ${fit.k.toFixed(2)} ${fit.points === undefined ? 'over every point' : `over the ${fit.points} points measured`}${halves}`);
  }
  if (data.slo) {
    // Said as kb lab history says it, the limit to the same digits and the swept value with its
    // unit: the report read "highest workload.rate / capacity (50.8 req/s) meeting it: 0.500"
    // and "<= 39 ms" where the history of the same run read "met up to 0.5x capacity (25.4
    // req/s)" and "<= 38.59 ms".
    const limit = formatMetric('slo.limit_ms', data.slo.limitMs);
    const met = data.slo.maxX === null ? 'met at no point' : `met up to ${run ? sweptValueText(run, data.slo.maxX) : `${data.xKey} ${formatX(data.slo.maxX)}`}`;
    notes.push(`  SLO: ${data.slo.metric} <= ${limit}, ${met}`);
  }
  if (data.probe) {
    const p = data.probe;
    notes.push(`  Probed in this run: ${p.bandwidthGBs.toFixed(1)} GB/s read, ${p.gflops.toFixed(1)} GFLOP/s matmul (${p.threads} threads); ridge at ~${p.ridgeBatch.toFixed(1)} sequences`);
  }
  return [...lines, ...notes];
}
