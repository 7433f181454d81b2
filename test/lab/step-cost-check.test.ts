// --compare's check of the sim's step costs against the measured run's own steps: a machine
// slower than at calibration (every step off alike) told apart from a missing term (one size
// of step off, the rest not), from synthetic steps of known ratios.
import { describe, expect, it } from 'vitest';
import { predictStepMs, type StepShape } from '../../src/engine/index.ts';
import type { DeviceProfile } from '../../src/lab/devices/device-profile.ts';
import type { LabRunResult } from '../../src/lab/run.ts';
import { checkStepCosts, stepCostText } from '../../src/lab/step-cost-check.ts';

const terms = { stepMs: 1, tokenMs: 0.05, attendedMs: 0.0001, sampledMs: 0.02, prefillPassMs: 0.5 };
const profile = { name: 'mine', source: { kind: 'calibrated', at: '2026-11-20T10:00:00.000Z', load: { average: 0.3, cores: 2 } }, terms } as unknown as DeviceProfile;
/** The load average as the measured run started. */
const busy = { average: 3.5, cores: 2 };

const decode = (batch: number): StepShape => ({ tokens: batch, sampled: batch, seqs: batch, decodes: batch, attended: batch * 100 });
const prefill = (tokens: number): StepShape => ({ tokens, sampled: 1, seqs: 1, decodes: 0, attended: (tokens * (tokens + 1)) / 2 });

/** A measured run whose steps took `scale(shape)` times what the terms give. */
function measured(scale: (shape: StepShape) => number, traced = true): LabRunResult {
  const shapes = [...[1, 4, 16, 64].flatMap((b) => Array.from({ length: 30 }, () => decode(b))), ...Array.from({ length: 30 }, () => prefill(128))];
  const steps = shapes.map((shape) => ({ shape, ms: predictStepMs(terms, shape) * scale(shape) }));
  return { points: [{ report: { runs: [traced ? { steps } : {}] } }] } as unknown as LabRunResult;
}

describe('the step-cost check of --compare', () => {
  it('says the terms held when the steps took what they give', () => {
    const check = checkStepCosts(profile, measured(() => 1.05), busy)!;
    expect(check.overall.ratio).toBeCloseTo(1.05, 6);
    expect(check.overall.steps).toBe(150);
    expect(check.byKind.map((k) => k.label)).toEqual(['decode', 'prefill']);
    const text = stepCostText(check).join('\n');
    expect(text).toContain("the measured run's 150 steps took 1.05x the time mine's terms give");
    expect(text).toContain('The step costs held');
    expect(text).not.toContain('machine ran');
  });

  it('puts every step slowed alike down to the machine, since the date of the calibration', () => {
    const text = stepCostText(checkStepCosts(profile, measured(() => 3), busy)!).join('\n');
    expect(text).toContain('took 3.00x');
    expect(text).toContain('The machine ran slower than when mine was calibrated (2026-11-20, load average 0.3), as it does when other programs share its cores now (load average 3.5 on 2 cores as the measured run started)');
    expect(stepCostText(checkStepCosts(profile, measured(() => 0.5), busy)!).join('\n')).toContain('The machine ran faster than when mine was calibrated (2026-11-20, load average 0.3), as it does when other programs share its cores less than they did then (load average 3.5');
    expect(text).not.toContain('lacks a term');
    expect(text).not.toContain('calibrated while other programs ran');
    expect(text).not.toContain('held');
  });

  it('names the size of step that is off on its own: a term the model lacks', () => {
    const check = checkStepCosts(profile, measured((shape) => (shape.decodes > 0 && shape.tokens === 1 ? 2 : 1)), busy)!;
    expect(check.decodeBySize.map((s) => [s.label, s.ratio])).toEqual([['1', 2], ['2-4', 1], ['5-16', 1], ['17-64', 1]]);
    const text = stepCostText(check).join('\n');
    expect(text).toContain('Some steps were off by more than the rest (decode at batch 1): the cost model lacks a term for them, or a load hit them unevenly; the same on a quiet machine means the model.');
    expect(text).toContain('Decode steps by batch size: 1 2.00x, 2-4 1.00x, 5-16 1.00x, 17-64 1.00x.');
  });

  it('says when the profile itself was calibrated on a busy machine', () => {
    const calibratedBusy = { ...profile, source: { ...profile.source, load: { average: 2.4, cores: 2 } } } as DeviceProfile;
    expect(stepCostText(checkStepCosts(calibratedBusy, measured(() => 1), busy)!).join('\n')).toContain(
      'mine was calibrated while other programs ran (load average 2.4): its terms carry their share of the cores. Calibrate again when the machine is quiet.',
    );
  });

  it('says nothing for a run whose steps were not traced', () => {
    expect(checkStepCosts(profile, measured(() => 1, false), busy)).toBeNull();
  });
});
