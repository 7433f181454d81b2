// Text charts for lab results, drawn with plain characters so they read the same in any
// terminal, with or without colour: grouped bar charts (one group per metric, one bar per
// run) and line charts (one or more series against a swept number, with an optional fitted
// curve, a horizontal limit line such as an SLO, and a marked knee).

export interface BarGroup {
  title: string;
  bars: Array<{ label: string; value: number; text: string }>;
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

function bar(value: number, max: number, width: number): string {
  if (!(max > 0) || !(value > 0)) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

/** A bar shrinks to fit its line down to this many columns. */
const MIN_BAR = 10;

/**
 * One block per group; bars within a group share a scale (groups have different units). Bars
 * are at most `barWidth` long, and shorter where a line would pass `lineWidth` columns: the
 * bars get what the labels and the longest value leave (at 80 columns, "126.4 tokens/s" was
 * wrapped onto a line of its own).
 */
export function barChart(groups: readonly BarGroup[], { lineWidth = 78, barWidth = 40 }: { lineWidth?: number; barWidth?: number } = {}): string[] {
  const labelWidth = Math.max(1, ...groups.flatMap((g) => g.bars.map((b) => b.label.length)));
  const textWidth = Math.max(0, ...groups.flatMap((g) => g.bars.map((b) => b.text.length)));
  const width = Math.min(barWidth, Math.max(Math.min(MIN_BAR, barWidth), lineWidth - (4 + labelWidth + 2 + 2 + textWidth)));
  const lines: string[] = [];
  for (const group of groups) {
    lines.push(`  ${group.title}`);
    const max = Math.max(0, ...group.bars.map((b) => b.value));
    for (const b of group.bars) {
      lines.push(`    ${b.label.padEnd(labelWidth)}  ${bar(b.value, max, width).padEnd(width)}  ${b.text}`);
    }
  }
  return lines;
}

export interface LineSeries {
  name: string;
  /** One marker character, distinct per series. */
  marker: string;
  points: Array<{ x: number; y: number }>;
}

export interface LineChartSpec {
  series: readonly LineSeries[];
  /** A curve drawn with dots in every column (e.g. a fitted power law). */
  curve?: { name: string; at(x: number): number };
  /** A horizontal line (e.g. the SLO). */
  limit?: { name: string; y: number };
  /** An x to mark with a vertical line of ┊ and a ▼ on top. */
  knee?: { name: string; x: number };
  logX?: boolean;
  /** Labels under the x axis: the swept values. */
  xLabels: Array<{ x: number; label: string }>;
  xTitle: string;
  yTitle: string;
  width?: number;
  height?: number;
  formatY?(y: number): string;
  /** The most y can be (1 for a share): the axis's headroom stops there, not past it. */
  yCeiling?: number;
}

function defaultFormat(y: number): string {
  const abs = Math.abs(y);
  if (abs >= 1e4) return y.toExponential(1);
  return y.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : 2);
}

/** A line chart: rows top to bottom, y axis on the left, x labels and a legend below. */
export function lineChart(spec: LineChartSpec): string[] {
  const width = spec.width ?? 56;
  const height = spec.height ?? 12;
  const format = spec.formatY ?? defaultFormat;
  const xs = spec.series.flatMap((s) => s.points.map((p) => p.x)).concat(spec.xLabels.map((l) => l.x));
  const ys = spec.series.flatMap((s) => s.points.map((p) => p.y));
  if (spec.limit) ys.push(spec.limit.y);
  if (xs.length === 0 || ys.length === 0) return ['  (nothing measured to chart)'];
  const tx = (x: number) => (spec.logX ? Math.log(Math.max(x, 1e-12)) : x);
  const xMin = Math.min(...xs.map(tx));
  const xMax = Math.max(...xs.map(tx));
  const yMin = Math.min(0, ...ys);
  // 5% headroom over the top point, but not past what y can be: a utilization axis read "105%".
  const yMax = Math.min(Math.max(...ys) * 1.05, Math.max(spec.yCeiling ?? Infinity, ...ys)) || 1;
  const col = (x: number) => (xMax === xMin ? Math.floor(width / 2) : Math.round(((tx(x) - xMin) / (xMax - xMin)) * (width - 1)));
  const row = (y: number) => Math.round(((yMax - y) / (yMax - yMin)) * (height - 1));
  const inside = (r: number) => r >= 0 && r < height;
  const grid: string[][] = Array.from({ length: height }, () => Array.from({ length: width }, () => ' '));
  const put = (r: number, c: number, ch: string) => {
    if (inside(r) && c >= 0 && c < width) grid[r][c] = ch;
  };

  if (spec.knee) for (let r = 0; r < height; r++) put(r, col(spec.knee.x), '┊');
  if (spec.limit) for (let c = 0; c < width; c++) put(row(spec.limit.y), c, '─');
  if (spec.curve) {
    for (let c = 0; c < width; c++) {
      const t = xMin + ((xMax - xMin) * c) / Math.max(1, width - 1);
      const x = spec.logX ? Math.exp(t) : t;
      const y = spec.curve.at(x);
      if (Number.isFinite(y)) put(row(y), c, '·');
    }
  }
  for (const series of spec.series) {
    const sorted = [...series.points].sort((a, b) => a.x - b.x);
    // Thin joins between neighbouring points, so a series reads as one line.
    for (let i = 1; i < sorted.length; i++) {
      const c0 = col(sorted[i - 1].x);
      const c1 = col(sorted[i].x);
      for (let c = c0 + 1; c < c1; c++) {
        const f = (c - c0) / (c1 - c0);
        const r = Math.round(row(sorted[i - 1].y) + f * (row(sorted[i].y) - row(sorted[i - 1].y)));
        if (grid[r]?.[c] === ' ' || grid[r]?.[c] === '┊') put(r, c, '.');
      }
    }
  }
  for (const series of spec.series) for (const p of series.points) put(row(p.y), col(p.x), series.marker);
  if (spec.knee) put(0, col(spec.knee.x), '▼');

  // The bottom label is the floor itself: yMax - (yMax - yMin) * (h-1) / (h-1) can land a hair
  // below zero in floating point, and the axis then read "-0.00".
  const labelY = (r: number) => (r === height - 1 ? yMin : yMax - ((yMax - yMin) * r) / (height - 1));
  const labels = Array.from({ length: height }, (_, r) => (r === 0 || r === height - 1 || r === Math.floor((height - 1) / 2) ? format(labelY(r)) : ''));
  const axisWidth = Math.max(...labels.map((l) => l.length));
  const lines = [`  ${spec.yTitle}`];
  grid.forEach((cells, r) => lines.push(`  ${labels[r].padStart(axisWidth)} ┤${cells.join('')}`));
  lines.push(`  ${' '.repeat(axisWidth)} └${'─'.repeat(width)}`);
  const under = Array.from({ length: width + 12 }, () => ' ');
  // The two ends first, then the rest where they fit: skipping in order dropped the last label
  // (768 shown at the end of an axis whose last point is 1023).
  const byX = [...spec.xLabels].sort((a, b) => a.x - b.x);
  const placing = byX.length > 2 ? [byX[0], byX[byX.length - 1], ...byX.slice(1, -1)] : byX;
  for (const { x, label } of placing) {
    const start = Math.min(Math.max(0, col(x) - Math.floor(label.length / 2)), width + 12 - label.length);
    // Skip a label that would run into the previous one.
    if (under.slice(Math.max(0, start - 1), start + label.length + 1).some((ch) => ch !== ' ')) continue;
    for (let i = 0; i < label.length; i++) under[start + i] = label[i];
  }
  lines.push(`  ${' '.repeat(axisWidth)}  ${under.join('').trimEnd()}`);
  lines.push(`  ${' '.repeat(axisWidth)}  ${spec.xTitle}${spec.logX ? ' (log scale)' : ''}`);
  const legend = [
    ...spec.series.map((s) => `${s.marker} ${s.name}`),
    ...(spec.curve ? [`· ${spec.curve.name}`] : []),
    ...(spec.limit ? [`─ ${spec.limit.name}`] : []),
    ...(spec.knee ? [`▼ ${spec.knee.name}`] : []),
  ];
  lines.push(`  ${legend.join('   ')}`);
  return lines;
}
