// A sweep's chart data (analysis.ts) drawn as text: bars for a categorical sweep, a line
// chart for a numeric one with its fit, SLO line and knee.
import type { ChartData } from './analysis.ts';
import { barChart, lineChart, type LineSeries } from './chart.ts';
import { formatMetric, labMetricInfo } from './metrics.ts';

const markers = ['●', '○', '◆', '▲'];

function titleOf(metric: string): string {
  const unit = labMetricInfo(metric)?.unit;
  return unit ? `${metric} (${unit})` : metric;
}

function formatX(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toPrecision(3);
}

export function chartLines(data: ChartData): string[] {
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
    limit: data.slo ? { name: `SLO ${data.slo.limitMs.toFixed(0)} ms`, y: data.slo.limitMs } : undefined,
    knee: data.knee ? { name: `knee at ${data.knee.label}`, x: data.knee.x } : undefined,
    logX: data.logX,
    xLabels: data.points.flatMap((p) => (p.x === null ? [] : [{ x: p.x, label: p.label }])),
    xTitle: data.xKey,
    yTitle: units.length === 1 ? units[0] : data.series.join(', '),
  });
  const notes: string[] = [];
  if (fit) {
    const halves = fit.kLow !== null && fit.kHigh !== null ? `; lower half ${fit.kLow.toFixed(2)}, upper half ${fit.kHigh.toFixed(2)}` : '';
    notes.push(`  Growth exponent (y ~ x^k): k = ${fit.k.toFixed(2)} over every point${halves}`);
  }
  if (data.slo) {
    notes.push(
      `  SLO: ${data.slo.metric} <= ${data.slo.limitMs.toFixed(0)} ms; ${data.slo.maxX === null ? 'no point meets it' : `highest ${data.xKey} meeting it: ${formatX(data.slo.maxX)}`}`,
    );
  }
  if (data.probe) {
    const p = data.probe;
    notes.push(`  Probed in this run: ${p.bandwidthGBs.toFixed(1)} GB/s read, ${p.gflops.toFixed(1)} GFLOP/s matmul (${p.threads} threads); ridge at ~${p.ridgeBatch.toFixed(1)} sequences`);
  }
  return [...lines, ...notes];
}
