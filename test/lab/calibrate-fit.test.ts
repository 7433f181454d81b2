import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CostTerms } from '../../src/engine/backend/sim/cost-terms.ts';
import { predictStepMs } from '../../src/engine/backend/sim/cost-terms.ts';
import type { StepShape } from '../../src/engine/backend/sim/step-shape.ts';
import { fitCostTerms, type StepSample } from '../../src/lab/calibrate/fit.ts';
import { nnls } from '../../src/lab/calibrate/nnls.ts';
import type { DeviceProfile } from '../../src/lab/devices/device-profile.ts';
import { calibrationText, decodeSizeLines, poorFitWarning, spreadLines, submitDelayText, termLines } from '../../src/lab/calibrate/calibrate-report.ts';
import { fitLines } from '../../src/ui/text/fit-lines.ts';

/** A deterministic generator, so a failure reproduces. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function decode(batch: number, context: number): StepShape {
  let attended = 0;
  for (let i = 0; i < batch; i++) attended += context;
  return { tokens: batch, sampled: batch, seqs: batch, decodes: batch, attended };
}

function prefill(chunk: number, start: number): StepShape {
  let attended = 0;
  for (let p = start; p < start + chunk; p++) attended += p + 1;
  return { tokens: chunk, sampled: 1, seqs: 1, decodes: 0, attended };
}

function mixed(batch: number, context: number, chunk: number): StepShape {
  const d = decode(batch, context);
  const p = prefill(chunk, 0);
  return { tokens: d.tokens + p.tokens, sampled: d.sampled + 1, seqs: batch + 1, decodes: batch, attended: d.attended + p.attended };
}

function sweep(terms: CostTerms, noise: number, seed: number): StepSample[] {
  const random = rng(seed);
  const shapes: StepShape[] = [];
  for (const b of [1, 2, 4, 8, 16, 32]) for (const c of [16, 128, 512]) shapes.push(decode(b, c));
  for (const n of [16, 64, 128, 256]) for (const start of [0, 256]) shapes.push(prefill(n, start));
  for (const b of [2, 8]) for (const n of [32, 128]) shapes.push(mixed(b, 64, n));
  return shapes.flatMap((shape) =>
    [0, 1, 2].map(() => ({ shape, ms: predictStepMs(terms, shape) * (1 + noise * (2 * random() - 1)) })),
  );
}

describe('fitCostTerms', () => {
  const truth: CostTerms = { stepMs: 1.5, tokenMs: 0.2, attendedMs: 2e-5, sampledMs: 0.8, prefillPassMs: 3 };

  it('recovers the terms exactly from noiseless step times', () => {
    const fit = fitCostTerms(sweep(truth, 0, 1));
    for (const key of Object.keys(truth) as (keyof CostTerms)[]) expect(fit.terms[key]).toBeCloseTo(truth[key], 8);
    expect(fit.r2).toBeCloseTo(1, 10);
    expect(fit.outliers).toBe(0);
  });

  it('recovers known terms within a few % from step times with 5% noise', () => {
    const fit = fitCostTerms(sweep(truth, 0.05, 7));
    expect(fit.terms.stepMs).toBeGreaterThan(truth.stepMs * 0.85);
    expect(fit.terms.stepMs).toBeLessThan(truth.stepMs * 1.15);
    expect(Math.abs(fit.terms.tokenMs / truth.tokenMs - 1)).toBeLessThan(0.1);
    expect(Math.abs(fit.terms.sampledMs / truth.sampledMs - 1)).toBeLessThan(0.1);
    expect(Math.abs(fit.terms.attendedMs / truth.attendedMs - 1)).toBeLessThan(0.3);
    expect(Math.abs(fit.terms.prefillPassMs / truth.prefillPassMs - 1)).toBeLessThan(0.3);
    expect(fit.r2).toBeGreaterThan(0.98);
    for (const kind of fit.byKind) expect(kind.medianPct).toBeLessThan(5);
  });

  it('weighs each range of decode batch size alike, so the few big batches are not fitted to the many small ones', () => {
    // A CPU's cost per sequence falls as the batch grows (its kernels block more rows together):
    // 0.3 ms up to 8 sequences, 0.2 ms beyond. A calibration measures many more small batches
    // (every wave's tail) than big ones.
    const stepMs = (batch: number) => 1.5 + 0.3 * Math.min(batch, 8) + 0.2 * Math.max(batch - 8, 0);
    const counts: [number, number][] = [[1, 80], [2, 30], [4, 30], [8, 25], [16, 25], [64, 10], [256, 10]];
    const samples: StepSample[] = counts.flatMap(([batch, n]) => Array.from({ length: n }, () => ({ shape: decode(batch, 16), ms: stepMs(batch) })));
    for (const n of [16, 64, 128, 256]) samples.push({ shape: prefill(n, 0), ms: predictStepMs(truth, prefill(n, 0)) });
    const { terms, decodeBySize } = fitCostTerms(samples);
    for (const [batch] of counts) expect(Math.abs(predictStepMs(terms, decode(batch, 16)) / stepMs(batch) - 1), `batch ${batch}`).toBeLessThan(0.15);
    // The report shows each range's signed median error: the bend is there to see.
    expect(decodeBySize.map((s) => [s.label, s.steps])).toEqual([['1', 80], ['2-4', 60], ['5-16', 50], ['17-64', 10], ['65-256', 10]]);
    for (const size of decodeBySize) expect(Math.abs(size.medianPct)).toBeLessThan(15);
    expect(decodeSizeLines([{ label: '1', steps: 80, medianPct: -0.12 }, { label: '65-256', steps: 10, medianPct: 12.34 }])).toEqual([
      '    by batch: 1 -0.1%, 65-256 +12.3% (median; + is predicted slower than measured)',
    ]);
    expect(decodeSizeLines([{ label: '1', steps: 80, medianPct: 1 }])).toEqual([]);
  });

  it('sets aside steps slowed by another process and still recovers the terms', () => {
    const samples = sweep(truth, 0.02, 3);
    for (let i = 0; i < samples.length; i += 17) samples[i] = { ...samples[i], ms: samples[i].ms * 4 };
    const fit = fitCostTerms(samples);
    expect(fit.outliers).toBeGreaterThan(0);
    expect(Math.abs(fit.terms.tokenMs / truth.tokenMs - 1)).toBeLessThan(0.1);
  });

  it('keeps the spread of every step around the fit, the disturbed ones too, as 101 quantiles', () => {
    const samples = sweep(truth, 0, 5);
    // One step in ten runs 1.5x (a collection, a neighbour), one in fifty 3x.
    samples.forEach((sample, i) => (sample.ms *= i % 50 === 0 ? 3 : i % 10 === 0 ? 1.5 : 1));
    const fit = fitCostTerms(samples);
    expect(fit.spread).toHaveLength(101);
    expect(fit.spread[50]).toBeCloseTo(1, 6);
    expect(fit.spread[0]).toBeCloseTo(1, 6);
    expect(fit.spread[100]).toBeCloseTo(3, 6);
    // Sorted, and as many slow steps above the median as were made slow.
    expect([...fit.spread].sort((a, b) => a - b)).toEqual(fit.spread);
    expect(fit.spread.filter((ratio) => ratio > 1.01).length).toBeGreaterThanOrEqual(9);
    expect(fit.spread.filter((ratio) => ratio > 1.01).length).toBeLessThanOrEqual(12);
  });

  it('holds a term the data cannot support at zero instead of going negative', () => {
    const noAttention: CostTerms = { ...truth, attendedMs: 0 };
    const fit = fitCostTerms(sweep(noAttention, 0.03, 11));
    for (const value of Object.values(fit.terms)) expect(value).toBeGreaterThanOrEqual(0);
    expect(fit.terms.attendedMs).toBeLessThan(truth.attendedMs / 2);
  });

  it('refuses too few steps with a clear error', () => {
    expect(() => fitCostTerms(sweep(truth, 0, 1).slice(0, 2))).toThrow(/too few measured steps/);
  });
});

describe('nnls', () => {
  it('never returns a negative coefficient and matches unconstrained least squares when that is non-negative', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 5, noNaN: true }), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 1, max: 1000 }),
        (x, seed) => {
          const random = rng(seed);
          const rows = Array.from({ length: 12 }, () => [1, random() * 10, random() * 100]);
          const y = rows.map((row) => row.reduce((sum, v, i) => sum + v * x[i], 0));
          const got = nnls(rows, y);
          for (const v of got) expect(v).toBeGreaterThanOrEqual(0);
          got.forEach((v, i) => expect(v).toBeCloseTo(x[i], 5));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('prints the spread over all steps and by size of step, within 80 columns', () => {
    const table = (top: number) => Array.from({ length: 101 }, (_, i) => 0.9 + (i / 100) * (top - 0.9));
    const lines = spreadLines(table(2), [{ fromMs: 0, quantiles: table(2.5) }, { fromMs: 3.6, quantiles: table(1.8) }, { fromMs: 10.5, quantiles: table(1.3) }]);
    expect(lines).toEqual([
      'Spread of measured steps around the fit: p10 1.01x, p50 1.45x, p90 1.89x, p99 1.99x (mean 1.45x)',
      'By size of step, what the sim draws from (a pause weighs less on a long step):',
      '  fitted under 3.6 ms      p50 1.70x, p90 2.34x, p99 2.48x',
      '  fitted 3.6-10.5 ms       p50 1.35x, p90 1.71x, p99 1.79x',
      '  fitted 10.5 ms and over  p50 1.10x, p90 1.26x, p99 1.30x',
    ]);
    for (const line of lines.slice(1)) expect(line.length).toBeLessThanOrEqual(80);
    expect(spreadLines(table(2), [{ fromMs: 0, quantiles: table(2) }])).toEqual([`${lines[0]}; the sim draws each step's time from it`]);
  });
});

describe('a poor fit is said, not saved silently', () => {
  const fit = (r2: number, decodePct: number) =>
    ({ r2, byKind: [{ kind: 'decode', steps: 400, medianPct: decodePct, worstPct: 90 }, { kind: 'prefill', steps: 100, medianPct: 3, worstPct: 9 }] }) as unknown as Parameters<typeof poorFitWarning>[0];
  it('warns on a low R² or a kind of step far off at the median (a busy machine during the sweep)', () => {
    expect(poorFitWarning(fit(0.988, 4))).toBeNull();
    // The probe that found it: R² 0.599, decode 38.8% off at the median, saved without a word.
    expect(poorFitWarning(fit(0.599, 38.8))).toBe(
      'Warning: a poor fit (R² 0.599; decode steps off by 38.8% at the median). Something else was probably using the machine during the sweep; the sim will be off on this profile. Calibrate again when the machine is quiet.',
    );
    expect(poorFitWarning(fit(0.9, 5))).toMatch(/^Warning: a poor fit \(R² 0\.900\)\./);
  });
});

describe('the calibration report', () => {
  it('counts the sweep\'s steps so they add up: every step, those timed, those fitted and set aside', () => {
    // It read "90 steps in 1.6 s; 61 step times fitted, 24 set aside": five steps unaccounted
    // for (the last step of each wave has no next one to time it by).
    const truth: CostTerms = { stepMs: 1.5, tokenMs: 0.2, attendedMs: 2e-5, sampledMs: 0.8, prefillPassMs: 3 };
    const samples = sweep(truth, 0, 1);
    const fit = fitCostTerms(samples);
    const steps = samples.length + 5;
    const profile: DeviceProfile = {
      format: 1,
      name: 'cpu-gpt2-tiny',
      model: 'gpt2-tiny',
      source: { kind: 'calibrated', backend: 'cpu', device: 'cpu, 2 threads', at: '2026-11-26T22:00:00.000Z', steps, wallMs: 1600 },
      terms: fit.terms,
      submitMs: 0.2,
      spread: fit.spread,
      spreadBySize: fit.spreadBySize,
      kv: { memoryBytes: 2 ** 29, weightBytes: 2 ** 24, reserveBytes: 0, dtypeBytes: 4 },
      fit: { r2: fit.r2, byKind: fit.byKind, kept: fit.kept, outliers: fit.outliers },
    };
    const sweepResult = { samples, device: 'cpu, 2 threads', kv: { numBlocks: 8192, blockSize: 16, kvBytesPerToken: 4096 }, steps, wallMs: 1600, submitMs: 0.2 };
    const text = calibrationText({ profile, fit, sweep: sweepResult }, '/tmp/x.json').replace(/\n\s+/g, ' ');
    expect(text).toContain(`Sweep: ${steps} steps in 1.6 s; ${samples.length} timed (the last step of each wave has no next one to time it by): ${fit.kept} fitted, ${fit.outliers} set aside as disturbed`);
    expect(fit.kept + fit.outliers).toBe(samples.length);
    expect(text).toContain('And once per request: 0.200 ms from submit until the scheduler sees it');
    // How to use and check the profile: each on a line of its own, so neither wraps under the other.
    const lines = calibrationText({ profile, fit, sweep: sweepResult }, '/tmp/x.json').trimEnd().split('\n');
    expect(lines.slice(-2)).toEqual([`Use it:   kb lab <name> --backend sim --set device=${profile.name} --set model=${profile.model}`, 'Check it: add --compare cpu']);
    // The file it replaced: a readable profile is described; a broken one was replaced without a word.
    const stored = { name: 'cpu-gpt2-tiny', path: '/tmp/x.json' };
    const over = (replaced: Parameters<typeof calibrationText>[2]) => calibrationText({ profile, fit, sweep: sweepResult }, '/tmp/x.json', replaced).replace(/\n\s+/g, ' ');
    expect(over({ ...stored, profile, error: null })).toContain('Saved to /tmp/x.json (replacing the profile calibrated here on 2026-11-26 from cpu (cpu, 2 threads))');
    expect(over({ ...stored, profile: null, error: 'not readable JSON' })).toContain('Saved to /tmp/x.json (replacing a broken profile file of that name, which kb could not read)');
    expect(over(null)).toContain('Saved to /tmp/x.json\n');
  });

  it('says how busy the machine was as the sweep started, and that busy terms describe a busy machine', () => {
    const truth: CostTerms = { stepMs: 1.5, tokenMs: 0.2, attendedMs: 2e-5, sampledMs: 0.8, prefillPassMs: 3 };
    const samples = sweep(truth, 0, 1);
    const fit = fitCostTerms(samples);
    const sweepResult = { samples, device: 'cpu, 2 threads', kv: { numBlocks: 8192, blockSize: 16, kvBytesPerToken: 4096 }, steps: samples.length, wallMs: 1600, submitMs: 0.2 };
    const report = (load?: { average: number; cores: number }) => {
      const source = { kind: 'calibrated' as const, backend: 'cpu' as const, device: 'cpu, 2 threads', at: '2026-11-27T10:00:00.000Z', steps: samples.length, wallMs: 1600, ...(load ? { load } : {}) };
      const profile: DeviceProfile = { format: 1, name: 'p', model: 'gpt2-tiny', source, terms: fit.terms, kv: { memoryBytes: 2 ** 29, weightBytes: 2 ** 24, reserveBytes: 0, dtypeBytes: 4 } };
      return calibrationText({ profile, fit, sweep: sweepResult }, '/tmp/x.json').replace(/\n\s+/g, ' ');
    };
    expect(report({ average: 0.4, cores: 2 })).toContain('Machine: load average 0.4 on 2 cores as the sweep started Cost of one step');
    expect(report({ average: 3.2, cores: 2 })).toContain('Machine: load average 3.2 on 2 cores as the sweep started (other programs were running: the terms describe the machine with them;');
    // A profile from before the load was kept says nothing of it.
    expect(report()).not.toContain('Machine: load average');
  });

  it('says a submit hop too short to time is under 0.01 ms, not a false-precise 0.000 ms', () => {
    // The engine records a hop its clock could not see as 0: calibrate printed "0.000 ms from submit until the scheduler sees it".
    expect(submitDelayText(0)).toBe('under 0.01 ms');
    expect(submitDelayText(0.004)).toBe('under 0.01 ms');
    expect(submitDelayText(0.2)).toBe('0.200 ms');
    expect(submitDelayText(370.24)).toBe('370.2 ms');
  });

  it('keeps each cost term readable at 80 columns: its meaning under it, never at the column of the terms', () => {
    // Piped at 80 columns it read "  stepMs  1.680 ms per step" / "  fixed per step: serving
    // loop, ..." (a line that looked like one more term) and "  (≈ 100.0 GFLOP/s)" alone,
    // and a term held at 0 read "0 per step", without a unit.
    const profile = {
      model: 'gpt2-tiny',
      terms: { stepMs: 1.68, tokenMs: 0.015725, attendedMs: 7.9764e-5, sampledMs: 0.386, prefillPassMs: 0 },
    } as unknown as DeviceProfile;
    const lines = fitLines(termLines(profile).join('\n'), 79).split('\n');
    const atTermColumn = lines.filter((line) => /^ {2}\S/.test(line)).map((line) => line.trim().split(/\s+/)[0]);
    expect(atTermColumn).toEqual(['stepMs', 'tokenMs', 'attendedMs', 'sampledMs', 'prefillPassMs']);
    expect(lines.every((line) => line.length <= 79)).toBe(true);
    expect(lines.find((line) => line.includes('tokenMs'))).toMatch(/15\.725 µs per token\s+\(≈ [\d.]+ GFLOP\/s\)/);
    expect(lines.find((line) => line.includes('prefillPassMs'))).toMatch(/ 0 ms per step with prefill/);
  });

  it('keeps a term held at 0 in the meaning column at 80 columns, and at 200', () => {
    // At 80 columns "(not supported by the data: held at 0)", written after the meaning "a
    // separate prefill pass: its launches and loop", wrapped under the end of "...pass: ", the
    // wrap taking that for a label: "held at 0" stood at column 31, in no column.
    const profile = {
      model: 'gpt2-tiny',
      terms: { stepMs: 6.2, tokenMs: 0.0257, attendedMs: 7.99e-4, sampledMs: 0.708, prefillPassMs: 0 },
    } as unknown as DeviceProfile;
    for (const width of [79, 199]) {
      const lines = fitLines(termLines(profile).join('\n'), width).split('\n');
      // Two columns only: the terms at 2, what each means (and a term held at 0) at 6.
      expect(lines.map((line) => /^ */.exec(line)![0].length).filter((indent) => indent !== 2 && indent !== 6)).toEqual([]);
      expect(lines.every((line) => line.length <= width)).toBe(true);
      const term = lines.findIndex((line) => line.trim().startsWith('prefillPassMs'));
      expect(lines.slice(term + 1)).toEqual(['      a separate prefill pass: its launches and loop', '      held at 0 (the data do not support this term)']);
    }
  });
});
