// The `chart:` block of a lab file and length lists: validated like the rest of the file,
// with the file, the line and the key in every error; and every bundled lab is valid.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLab } from '../../src/lab/lab-file.ts';
import { isSweepMetric } from '../../src/lab/metrics.ts';
import { parseOverrides } from '../../src/lab/lab-settings.ts';
import { repoRoot } from '../helpers/kb-cli.ts';
import { problemsOf } from './lab-problems.ts';

const sweepLab = `---
title: A sweep
summary: Rates.
workload:
  requests: 8
  promptTokens: [8, 8, 64]
sweep:
  key: workload.rate
  values: [1, 4, 16]
chart:
  kind: line
  y: [ttft.p95]
  logX: true
  knee: true
  slo: { scale: 3, of: ttft.p95 }
expect:
  - metric: slo.max_x_fraction
    op: "<"
    value: 1
    say: the SLO breaks inside the sweep
---
Body.
`;


describe('lab file: chart and length lists', () => {
  it('parses the chart, a list of prompt lengths and a sweep-wide check', () => {
    const lab = parseLab(sweepLab, 'x');
    expect(lab.chart).toEqual({ kind: 'line', y: ['ttft.p95'], logX: true, fit: null, slo: { scale: 3, of: 'ttft.p95' }, knee: true, roofline: false });
    expect(lab.settings.workload.promptTokens).toEqual({ min: 8, max: 64, values: [8, 8, 64] });
    expect(lab.expect[0].numerator).toEqual({ metric: 'slo.max_x_fraction', at: null });
  });

  it('refuses unknown chart keys, unknown or sweep-wide metrics, and options of the wrong kind', () => {
    expect(problemsOf(sweepLab.replace('  knee: true', '  kneee: true'))[0]).toMatch(/^lab\/x\.md:14: chart\.kneee: unknown key/);
    expect(problemsOf(sweepLab.replace('y: [ttft.p95]', 'y: [ttft.p96]'))[0]).toMatch(/^lab\/x\.md:\d+: chart\.y\.0: unknown metric "ttft\.p96"/);
    expect(problemsOf(sweepLab.replace('y: [ttft.p95]', 'y: [knee.x]'))[0]).toMatch(/knee\.x is one number per sweep/);
    expect(problemsOf(sweepLab.replace('kind: line', 'kind: pie'))[0]).toMatch(/chart\.kind: .*"bars".*"line"/);
    expect(problemsOf(sweepLab.replace('kind: line', 'kind: bars'))[0]).toMatch(/chart\.slo: only for kind: line/);
    expect(problemsOf(sweepLab.replace('scale: 3', 'scale: -1'))[0]).toMatch(/chart\.slo\.scale/);
    expect(problemsOf(sweepLab.replace('key: workload.rate\n  values: [1, 4, 16]', 'key: engine.policy\n  values: [static, continuous]'))).toEqual([
      expect.stringMatching(/^lab\/x\.md:11: chart\.kind: a line needs a numeric sweep; engine\.policy is not \(use bars\)$/),
    ]);
  });

  it('refuses a sweep-wide metric with @point, or in a lab without a sweep', () => {
    expect(problemsOf(sweepLab.replace('metric: slo.max_x_fraction', 'metric: slo.max_x_fraction@4'))[0]).toMatch(/one number for the whole sweep; drop @4/);
    const single = sweepLab.replace(/sweep:\n {2}key: workload.rate\n {2}values: \[1, 4, 16\]\n/, '').replace(/chart:[\s\S]*?expect:/, 'expect:');
    expect(problemsOf(single)[0]).toMatch(/slo\.max_x_fraction needs a sweep/);
  });

  it('a rate sweep may be relative to the measured capacity; no other key may', () => {
    expect(parseLab(sweepLab.replace('values: [1, 4, 16]', 'values: [0.5, 1, 2]\n  relativeTo: capacity'), 'x').sweep?.relativeTo).toBe('capacity');
    const wrong = sweepLab.replace('key: workload.rate\n  values: [1, 4, 16]', 'key: workload.requests\n  values: [1, 4, 16]\n  relativeTo: capacity');
    expect(problemsOf(wrong)[0]).toMatch(/^lab\/x\.md:\d+: sweep\.relativeTo: only workload\.rate can be swept relative to the capacity$/);
    expect(problemsOf(sweepLab.replace('values: [1, 4, 16]', 'values: [1, 4, 16]\n  relativeTo: memory'))[0]).toMatch(/sweep\.relativeTo/);
  });

  it('checks every length of a list against the range', () => {
    expect(problemsOf(sweepLab.replace('[8, 8, 64]', '[8, 0, 64]'))[0]).toMatch(/workload\.promptTokens: must be integer 1\.\.65536, A\.\.B, or A,B,C in turn/);
    expect(parseOverrides(['workload.promptTokens=16,16,700'])).toEqual([{ key: 'workload.promptTokens', value: { min: 16, max: 700, values: [16, 16, 700] } }]);
  });

  it('every bundled lab is valid, has a chart, a sweep and checks that name its metrics', () => {
    const names = readdirSync(join(repoRoot, 'lab')).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
    expect(names).toEqual(expect.arrayContaining(['batching', 'prefix-cache', 'chunked-prefill', 'ttft-vs-length', 'batch-size-sweep', 'load-sweep']));
    for (const name of names.filter((n) => n !== 'ttft-breakdown')) {
      const lab = parseLab(readFileSync(join(repoRoot, 'lab', `${name}.md`), 'utf8'), name);
      expect(lab.chart, name).not.toBeNull();
      expect(lab.sweep, name).not.toBeNull();
      expect(lab.expect.length, name).toBeGreaterThanOrEqual(2);
      expect(lab.body, name).toMatch(/## Run it[\s\S]*## Change one thing[\s\S]*## Questions/);
      expect(isSweepMetric(lab.chart!.y[0])).toBe(false);
    }
  });
});
