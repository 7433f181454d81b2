// The text charts: bars scaled within their group, and a line chart that places points by
// value, draws a fitted curve, an SLO line and a knee marker, and says so in its legend.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { barChart, lineChart } from '../../src/lab/chart.ts';
import { chartLines } from '../../src/lab/chart-view.ts';
import type { ChartData } from '../../src/lab/analysis.ts';
import { sweepSentences } from '../../src/lab/sweep-summary.ts';

describe('bar chart', () => {
  it('scales each group to its own largest value and prints the values', () => {
    const lines = barChart(
      [
        { title: 'throughput (tokens/s)', bars: [{ label: 'static', value: 100, text: '100 tokens/s' }, { label: 'continuous', value: 200, text: '200 tokens/s' }] },
        { title: 'ttft.p95 (ms)', bars: [{ label: 'static', value: 5, text: '5 ms' }, { label: 'continuous', value: 1, text: '1 ms' }] },
      ],
      { barWidth: 20 },
    );
    expect(lines[0]).toBe('  throughput (tokens/s)');
    expect(lines[1]).toMatch(/^ {4}static {6}█{10} +100 tokens\/s$/);
    expect(lines[2]).toMatch(/^ {4}continuous {2}█{20}  200 tokens\/s$/);
    expect(lines[4]).toMatch(/static\s+█{20}  5 ms/);
    expect(lines[5]).toMatch(/continuous\s+█{4} +1 ms/);
  });

  it('a bar never exceeds its width and is empty only for zero', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 4, max: 60 }), (values, width) => {
        const lines = barChart([{ title: 't', bars: values.map((value, i) => ({ label: `p${i}`, value, text: '' })) }], { barWidth: width });
        lines.slice(1).forEach((line, i) => {
          const bar = line.replace(/^ {4}p\d+ {2}/, '').replace(/ +$/, '');
          expect(bar.length).toBeLessThanOrEqual(width);
          expect(bar.length === 0).toBe(!(values[i] > 0));
        });
      }),
    );
  });
});

describe('bar chart widths', () => {
  it("fits each line in the width given, shortening the bars (the batching lab's chart at 80 columns)", () => {
    const groups = [
      { title: 'throughput.output_tps (tokens/s)', bars: [{ label: 'engine.policy=static', value: 93.72, text: '93.72 tokens/s' }, { label: 'engine.policy=continuous', value: 126.4, text: '126.4 tokens/s' }] },
    ];
    const narrow = barChart(groups, { lineWidth: 78 });
    for (const line of narrow) expect(line.length).toBeLessThanOrEqual(78);
    expect(narrow[2]).toMatch(/continuous +█+ {2}126\.4 tokens\/s$/);
    // Wide enough: the bars keep their full 40 columns.
    expect(barChart(groups, { lineWidth: 200 })[2]).toContain('█'.repeat(40));
    // Never under 10 columns of bar, however narrow.
    expect(barChart(groups, { lineWidth: 20 })[2]).toContain('█'.repeat(10));
  });
});

describe('line chart', () => {
  const series = [{ name: 'ttft.p95', marker: '●', points: [1, 2, 4, 8].map((x) => ({ x, y: x * x })) }];

  it('puts the lowest x at the left edge, the highest at the right, the largest y on top', () => {
    const lines = lineChart({ series, xLabels: [1, 2, 4, 8].map((x) => ({ x, label: String(x) })), xTitle: 'rate', yTitle: 'ms', width: 40, height: 10 });
    const rows = lines.slice(1, 11).map((line) => line.slice(line.indexOf('┤') + 1));
    expect(rows.every((row) => row.length === 40)).toBe(true);
    expect(rows[9][0]).toBe('●'); // (1, 1) bottom left
    expect(rows.findIndex((row) => row[39] === '●')).toBeLessThanOrEqual(1); // (8, 64) at the top right
    expect(lines.at(-3)).toMatch(/^\s+1\s+2\s+4\s+8$/);
    expect(lines.at(-1)).toBe('  ● ttft.p95');
  });

  it('labels the bottom of the y axis with its exact floor, never "-0.00" (a batch-size-sweep chart read "-0.00 tokens/s")', () => {
    for (const top of [100.74000000000001, 105.55000000000007, 106.66000000000008]) {
      const lines = lineChart({ series: [{ name: 'tps', marker: '●', points: [{ x: 1, y: 1 }, { x: 8, y: top }] }], xLabels: [{ x: 1, label: '1' }, { x: 8, label: '8' }], xTitle: 'n', yTitle: 'tokens/s' });
      const axis = lines.slice(1, 13).map((line) => line.slice(0, line.indexOf('┤')).trim());
      expect(axis[11]).toBe('0.00');
      expect(axis.join(' ')).not.toMatch(/-/);
    }
  });

  it('labels the last swept value when two labels collide (ttft-vs-length ended its axis at "768", its last point being 1023)', () => {
    const xs = [16, 32, 64, 128, 256, 512, 768, 1023];
    const lines = lineChart({ series: [{ name: 'ttft.p50', marker: '●', points: xs.map((x) => ({ x, y: x })) }], xLabels: xs.map((x) => ({ x, label: String(x) })), xTitle: 'workload.promptTokens', yTitle: 'ms', logX: true });
    const labels = lines.at(-3)!.trim().split(/\s+/);
    expect(labels[0]).toBe('16');
    expect(labels.at(-1)).toBe('1023');
  });

  it('draws the limit line, the knee column and the fitted curve, each in the legend', () => {
    const lines = lineChart({
      series,
      curve: { name: 'fit x^2', at: (x) => x * x },
      limit: { name: 'SLO 30 ms', y: 30 },
      knee: { name: 'knee at 4', x: 4 },
      logX: true,
      xLabels: [1, 2, 4, 8].map((x) => ({ x, label: String(x) })),
      xTitle: 'rate',
      yTitle: 'ms',
      width: 40,
      height: 10,
    });
    const plot = lines.slice(1, 11).join('\n');
    expect(plot).toContain('─'.repeat(10));
    expect(plot).toContain('▼');
    expect(plot).toContain('┊');
    expect(plot).toContain('·');
    expect(lines.at(-2)).toContain('(log scale)');
    expect(lines.at(-1)).toBe('  ● ttft.p95   · fit x^2   ─ SLO 30 ms   ▼ knee at 4');
  });
});

describe('a time chart of KV utilization', () => {
  it('tops its axis at 100%, which a share cannot pass (paged-kv\'s chart read "105%")', () => {
    const chart: ChartData = {
      kind: 'time',
      xKey: 'engine.kvReservation',
      logX: false,
      series: ['usage.utilization'],
      points: [{ label: 'paged', x: null, values: { 'usage.utilization': 0.86 } }],
      fit: null,
      slo: null,
      knee: null,
      probe: null,
      overTime: [{ metric: 'usage.utilization', label: 'paged', points: [0, 1, 2, 3].map((x) => ({ x, y: x === 1 ? 1 : 0.8 })) }],
    };
    const lines = chartLines(chart);
    const axis = lines.filter((line) => line.includes('┤')).map((line) => line.slice(0, line.indexOf('┤')).trim());
    expect(axis[0]).toBe('100%');
    expect(lines.join('\n')).not.toMatch(/10[1-9]%/);
    // The full point sits on the top row.
    expect(lines.find((line) => line.includes('┤'))).toContain('●');
  });
});

describe('a time chart of a count', () => {
  it('labels its axis in whole sequences (paged-kv\'s running axis read 16.8 and 9.16)', () => {
    const chart: ChartData = {
      kind: 'time',
      xKey: 'engine.kvReservation',
      logX: false,
      series: ['usage.running'],
      points: [{ label: 'paged', x: null, values: { 'usage.running': 12.4 } }],
      fit: null,
      slo: null,
      knee: null,
      probe: null,
      overTime: [{ metric: 'usage.running', label: 'paged', points: [0, 1, 2, 3].map((x) => ({ x, y: [4, 16, 16, 9][x] })) }],
    };
    const axis = chartLines(chart).filter((line) => line.includes('┤')).map((line) => line.slice(0, line.indexOf('┤')).trim()).filter(Boolean);
    expect(axis).toEqual(['17', '9', '0']);
  });
});

describe('a line chart\'s SLO note', () => {
  it('says the SLO as kb lab history does: the limit to its digits, the reach as a swept value with its unit', () => {
    const chart: ChartData = {
      kind: 'line',
      xKey: 'workload.rate / capacity (50.8 req/s)',
      logX: true,
      series: ['ttft.p95'],
      points: [0.5, 1, 2, 4].map((x, i) => ({ label: String(x), x, values: { 'ttft.p95': [12.9, 101, 300, 381][i] } })),
      fit: null,
      slo: { metric: 'ttft.p95', limitMs: 38.59, maxX: 0.5 },
      knee: null,
      probe: null,
    };
    const run = { sweepKey: 'workload.rate', sweepMetrics: { 'load.capacity_rps': 50.75, 'slo.limit_ms': 38.59, 'slo.max_x': 0.5 }, chart };
    // The report read "SLO: ttft.p95 <= 39 ms; highest workload.rate / capacity (50.8 req/s) meeting it: 0.500".
    const lines = chartLines(chart, run);
    expect(lines).toContain('  SLO: ttft.p95 <= 38.59 ms, met up to 0.5x capacity (25.4 req/s)');
    expect(lines.find((line) => line.includes('─ SLO'))).toContain('─ SLO 38.59 ms');
    expect(lines).toContain(`  ${sweepSentences(run)[0].replace(/^SLO /, 'SLO: ')}`); // the history's own sentence
    expect(chartLines({ ...chart, slo: { metric: 'ttft.p95', limitMs: 38.59, maxX: null } }, run)).toContain('  SLO: ttft.p95 <= 38.59 ms, met at no point');
  });
});

describe('a line chart\'s figures', () => {
  // Found as a user: batch-size-sweep's report drew decode.tokens_per_s and the roofline as dots
  // on a 12-row chart and printed neither figure anywhere (the expectations quote their ratios
  // only), so "how many tokens/s at 8 sequences?" had no answer in the report.
  it('are printed under it, a row per point, each series with its unit', () => {
    const chart: ChartData = {
      kind: 'line',
      xKey: 'workload.requests',
      logX: true,
      series: ['decode.tokens_per_s', 'roofline.decode_tps'],
      points: [1, 2, 4, 8].map((x, i) => ({ label: String(x), x, values: { 'decode.tokens_per_s': [323.6, 276.1, 452, 615.7][i], 'roofline.decode_tps': i === 3 ? null : [891.8, 1779.5, 3543.1][i] } })),
      fit: null,
      slo: null,
      knee: null,
      probe: null,
    };
    const lines = chartLines(chart);
    const at = lines.findIndex((line) => line.startsWith('  workload.requests'));
    expect(lines.slice(at, at + 5)).toEqual([
      '  workload.requests  decode.tokens_per_s  roofline.decode_tps',
      '  1                       323.6 tokens/s       891.8 tokens/s',
      '  2                       276.1 tokens/s      1779.5 tokens/s',
      '  4                       452.0 tokens/s      3543.1 tokens/s',
      '  8                       615.7 tokens/s         not measured',
    ]);
    // After the chart and its legend.
    expect(lines.slice(0, at).some((line) => line.includes('● decode.tokens_per_s'))).toBe(true);
  });
});
