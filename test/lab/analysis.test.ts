// What a sweep yields as a whole: the power-law fit, the knee, the scaled SLO and the
// roofline prediction, from known points.
import { describe, expect, it } from 'vitest';
import { analyseSweep, findKnee, fitPowerLaw, rooflineStepMs } from '../../src/lab/analysis.ts';
import { chartLines } from '../../src/lab/chart-view.ts';
import type { LabChart } from '../../src/lab/lab-file.ts';
import { applyOverrides, defaultSettings } from '../../src/lab/lab-settings.ts';
import type { RequestTimeline } from '../../src/engine/metrics/timeline.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLab } from '../../src/lab/lab-file.ts';
import { evaluateChecks } from '../../src/lab/checks.ts';

const chart = (extra: Partial<LabChart>): LabChart => ({ kind: 'line', y: ['ttft.p95'], logX: true, fit: null, slo: null, knee: false, roofline: false, ...extra });

function timeline(ttft: number): RequestTimeline {
  return { promptTokens: 8, submitStart: 0, submitEnd: 0, admit: 0, tokenTimes: [ttft, ttft + 1], finish: ttft + 1, error: null };
}

describe('sweep analysis', () => {
  it('fits y = a x^k exactly on a power law, and each half on its own', () => {
    const fit = fitPowerLaw([1, 2, 4, 8].map((x) => ({ x, y: 3 * x ** 1.5 })));
    expect(fit!.k).toBeCloseTo(1.5, 10);
    expect(fit!.a).toBeCloseTo(3, 10);
    expect(fitPowerLaw([{ x: 1, y: 1 }])).toBeNull();

    const xs = [16, 32, 64, 128, 256, 512];
    const points = xs.map((x) => ({
      label: String(x),
      settings: applyOverrides(defaultSettings, [{ key: 'workload.promptTokens', value: { min: x, max: x } }]),
      metrics: { 'ttft.p50': x + (x * x) / 1024 },
      timelines: [],
    }));
    const result = analyseSweep(chart({ y: ['ttft.p50'], fit: 'power' }), 'workload.promptTokens', points, null);
    expect(result.sweep['fit.exponent_low']).toBeLessThan(1.1);
    expect(result.sweep['fit.exponent_high']).toBeGreaterThan(1.15);
    expect(result.chart.points.map((p) => p.x)).toEqual(xs);
    // The report says over how many points (a --points 16,32 run read "over every point").
    expect(chartLines(result.chart)).toContain(`  Growth exponent (y ~ x^k): k = ${result.chart.fit!.k.toFixed(2)} over the 6 points measured; lower half ${result.sweep['fit.exponent_low']!.toFixed(2)}, upper half ${result.sweep['fit.exponent_high']!.toFixed(2)}`);
    const two = analyseSweep(chart({ y: ['ttft.p50'], fit: 'power' }), 'workload.promptTokens', points.slice(0, 2), null);
    expect(chartLines(two.chart)).toContain(`  Growth exponent (y ~ x^k): k = ${two.chart.fit!.k.toFixed(2)} over the 2 points measured`);
  });

  it('ttft-vs-length judges the rise of its exponent as a difference: a flat curve does not reproduce it', () => {
    const lab = parseLab(readFileSync(join(import.meta.dirname, '../../lab/ttft-vs-length.md'), 'utf8'), 'ttft-vs-length', 'lab/ttft-vs-length.md');
    const judge = (ttft: (x: number) => number) => {
      const points = lab.sweep!.values.map((value) => {
        const x = (value as { min: number }).min;
        return { label: String(x), settings: applyOverrides(defaultSettings, [{ key: 'workload.promptTokens', value: { min: x, max: x } }]), metrics: { 'ttft.p50': ttft(x) }, timelines: [] };
      });
      const { sweep } = analyseSweep(lab.chart!, 'workload.promptTokens', points, null);
      return evaluateChecks(lab.expect, { single: null, points: points.map((p) => ({ label: p.label, metrics: p.metrics })), sweep }).map((c) => c.pass);
    };
    // The sim on a GPU (the lab suggests it): TTFT flat at ~1 ms, exponents ~0.0002 and ~0.002.
    // Their ratio, 10, read "the growth exponent rises by at least 30%" beside a flat line.
    expect(judge((x) => 1.01 + x * 1e-6)).toEqual([false, false]);
    // This machine's cpu: exponents 0.31 and 1.23, both reproduced.
    expect(judge((x) => 3 + 0.02 * x + 3e-5 * x * x)).toEqual([true, true]);
  });

  it('finds the knee where a flat curve turns up, and where a rising one flattens', () => {
    expect(findKnee([1, 2, 4, 8, 16, 32].map((x, i) => ({ x, y: [10, 10, 11, 12, 60, 200][i] })), true)).toBe(3);
    expect(findKnee([1, 2, 4, 8, 16, 32].map((x, i) => ({ x, y: [1, 2, 4, 7.5, 8, 8.2][i] })), true)).toBe(3);
    expect(findKnee([{ x: 1, y: 1 }, { x: 2, y: 2 }], false)).toBeNull();
  });

  it('scales the SLO from the first point and finds the highest rate meeting it', () => {
    const ttfts = [10, 12, 20, 90, 400];
    const points = [1, 2, 4, 8, 16].map((rate, i) => ({
      label: String(rate),
      settings: applyOverrides(defaultSettings, [{ key: 'workload.rate', value: rate }]),
      metrics: { 'ttft.p95': ttfts[i], 'ttft.p50': ttfts[i] * 0.8, duration: 2 },
      timelines: [timeline(ttfts[i] * 0.5), timeline(ttfts[i])],
    }));
    const result = analyseSweep(chart({ slo: { scale: 4, of: 'ttft.p50' }, knee: true }), 'workload.rate', points, null);
    expect(result.sweep['slo.limit_ms']).toBeCloseTo(32);
    expect(result.sweep['slo.max_x']).toBe(4);
    expect(result.sweep['slo.max_x_fraction']).toBeCloseTo(0.25);
    expect(result.pointMetrics.get('8')!['slo.met_fraction']).toBe(0); // 45 and 90 ms both over 32
    expect(result.pointMetrics.get('1')!['slo.goodput_rps']).toBe(1); // 2 requests in 2 s
    expect(result.chart.knee?.label).toBe('8');
  });

  it('predicts a decode step from bandwidth and FLOP/s: flat while memory-bound, linear once compute-bound', () => {
    const probe = { bandwidth: 10e9, flops: 20e9, threads: 2 };
    const one = rooflineStepMs(defaultSettings, 1, probe)!;
    const two = rooflineStepMs(defaultSettings, 2, probe)!;
    const many = rooflineStepMs(defaultSettings, 256, probe)!;
    const more = rooflineStepMs(defaultSettings, 512, probe)!;
    expect(two / one).toBeLessThan(1.1);
    expect(more / many).toBeCloseTo(2, 1);
  });
});
