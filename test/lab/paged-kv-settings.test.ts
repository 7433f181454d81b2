// The settings and the chart that the paged-kv lab adds: the KV reservation scheme, a declared
// maximum apart from the output length, and a chart of usage over the time of each run.
import { describe, expect, it } from 'vitest';
import type { ChartData } from '../../src/lab/analysis.ts';
import { analyseSweep } from '../../src/lab/analysis.ts';
import { chartLines } from '../../src/lab/chart-view.ts';
import { benchmarkOptions } from '../../src/lab/engine-bridge.ts';
import { parseLab } from '../../src/lab/lab-file.ts';
import { applyOverrides, crossCheck, defaultSettings, parseOverrides, SettingError } from '../../src/lab/lab-settings.ts';
import { problemsOf } from './lab-problems.ts';

const timeLab = `---
title: Reservation
summary: Two schemes.
workload:
  requests: 8
  maxNewTokens: 256
sweep:
  key: engine.kvReservation
  values: [contiguous, paged]
chart:
  kind: time
  y: [usage.utilization, usage.running]
---
Body.
`;


const settingsWith = (sets: string[]) => applyOverrides(defaultSettings, parseOverrides(sets));

describe('kv reservation and declared maximum', () => {
  it('parses both settings and passes them to the engine; 0 declares the output length', () => {
    expect(parseOverrides(['engine.kvReservation=contiguous', 'workload.maxNewTokens=100..200'])).toEqual([
      { key: 'engine.kvReservation', value: 'contiguous' },
      { key: 'workload.maxNewTokens', value: { min: 100, max: 200 } },
    ]);
    expect(() => parseOverrides(['engine.kvReservation=slab'])).toThrow(/engine\.kvReservation must be paged \| contiguous/);
    expect(() => parseOverrides(['workload.maxNewTokens=-3'])).toThrow(SettingError);
    const options = benchmarkOptions(settingsWith(['engine.kvReservation=contiguous', 'workload.maxNewTokens=300']));
    expect(options.engine.scheduler?.kvReservation).toBe('contiguous');
    expect(options.workload.maxNewTokens).toBe(300);
    expect(benchmarkOptions(defaultSettings).workload.maxNewTokens).toBeUndefined();
    expect(benchmarkOptions(defaultSettings).engine.scheduler?.kvReservation).toBe('paged');
  });

  it('refuses a declared maximum past the context, a 0 mixed into a range, and a pool too small to reserve', () => {
    expect(crossCheck(settingsWith(['workload.promptTokens=100', 'workload.maxNewTokens=1000'])).join('\n')).toMatch(
      /workload\.maxNewTokens 1000 = 1100 tokens\) exceeds gpt2-tiny's context/,
    );
    expect(crossCheck(settingsWith(['workload.maxNewTokens=0..20'])).join('\n')).toMatch(/cannot be mixed/);
    // 64 KiB blocks on the cpu: 1 MiB is 16 blocks; 32 + 511 tokens reserved up front need 34.
    const small = ['engine.kvBudgetMB=1', 'workload.promptTokens=32', 'workload.outputTokens=16', 'workload.maxNewTokens=512'];
    expect(crossCheck(settingsWith(small))).toEqual([]);
    expect(crossCheck(settingsWith([...small, 'engine.kvReservation=contiguous'])).join('\n')).toMatch(/holds 16 blocks of 16 tokens; the longest request needs 34 reserved up front/);
  });
});

describe('backend and profile settings', () => {
  it('takes the engine\'s four backends and a profile switch, and passes the switch on', () => {
    expect(parseOverrides(['backend=auto', 'profile=true'])).toEqual([
      { key: 'backend', value: 'auto' },
      { key: 'profile', value: true },
    ]);
    expect(() => parseOverrides(['backend=cuda'])).toThrow(/backend must be cpu \| webgpu \| auto \| sim, got "cuda"/);
    expect(benchmarkOptions(settingsWith(['backend=webgpu', 'profile=true'])).engine).toMatchObject({ backend: 'webgpu', profile: true });
    expect(benchmarkOptions(defaultSettings).engine.profile).toBeUndefined();
  });
});

describe('time chart', () => {
  it('parses kind: time with usage series, and refuses point metrics and line options there', () => {
    expect(parseLab(timeLab, 'x').chart).toMatchObject({ kind: 'time', y: ['usage.utilization', 'usage.running'] });
    expect(problemsOf(timeLab.replace('y: [usage.utilization, usage.running]', 'y: [ttft.p95]'))[0]).toMatch(
      /chart\.y\.0: "ttft\.p95" is not a series over time; a time chart draws usage\.utilization/,
    );
    expect(problemsOf(timeLab.replace('  kind: time', '  kind: time\n  knee: true'))[0]).toMatch(/chart\.knee: only for kind: line/);
    expect(problemsOf(timeLab.replace('  kind: time', '  kind: line'))[0]).toMatch(/unknown metric "usage\.utilization"/);
  });

  it('draws one line per point against seconds, utilisation in percent, with the means', () => {
    const lab = parseLab(timeLab, 'x');
    const usage = (scale: number, steps: number) =>
      Array.from({ length: steps }, (_, i) => ({ timeMs: i * 100, running: scale * 4, reservedBlocks: 10, usedSlots: scale * 40, utilization: scale / 4 }));
    const point = (label: string, scale: number, steps: number) => ({
      label,
      settings: defaultSettings,
      metrics: { 'kv.utilization': scale / 4, 'scheduler.running_mean': scale * 4 },
      timelines: [],
      usage: usage(scale, steps),
    });
    const { chart, sweep } = analyseSweep(lab.chart!, 'engine.kvReservation', [point('contiguous', 1, 40), point('paged', 3, 15)], null);
    expect(sweep).toEqual({});
    expect(chart.overTime?.map((s) => [s.metric, s.label, s.points.length])).toEqual([
      ['usage.utilization', 'contiguous', 40],
      ['usage.utilization', 'paged', 15],
      ['usage.running', 'contiguous', 40],
      ['usage.running', 'paged', 15],
    ]);
    expect(chart.overTime?.[1].points[2]).toEqual({ x: 0.2, y: 0.75 });
    expect(chart.points.map((p) => p.values)).toEqual([
      { 'usage.utilization': 0.25, 'usage.running': 4 },
      { 'usage.utilization': 0.75, 'usage.running': 12 },
    ]);
    const text = chartLines(JSON.parse(JSON.stringify(chart)) as ChartData).join('\n');
    expect(text).toContain('usage.utilization (%)');
    expect(text).toContain('seconds into the run');
    expect(text).toContain('● engine.kvReservation=contiguous   ○ engine.kvReservation=paged');
    expect(text).toContain('Mean over the steps: contiguous 25.0%, paged 75.0%');
    expect(text).toContain('Mean over the steps: contiguous 4.0, paged 12.0');
    // The x axis runs to the longer run's end (3.9 s), ticked at round seconds.
    expect(text).toMatch(/^\s+0\s+1\s+2\s+3\s*$/m);
  });
});
