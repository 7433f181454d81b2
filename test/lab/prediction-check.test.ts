// --compare's table: one column for every label, and a word on p99s drawn from few requests.
import { describe, expect, it } from 'vitest';
import { foreignDeviceNote, predictionRows, predictionText } from '../../src/lab/prediction-check.ts';
import type { DeviceProfile } from '../../src/lab/devices/device-profile.ts';
import type { LabRunResult } from '../../src/lab/run.ts';

function run(runId: number, backend: string, requests: number[], scale: number): LabRunResult {
  return {
    lab: 'batch-size-sweep',
    runId,
    backend,
    device: backend,
    status: 'ok',
    sweep: { key: 'workload.requests', values: requests },
    points: requests.map((n) => ({
      label: String(n),
      settings: { workload: { requests: n }, repeats: 3 },
      metrics: { 'ttft.p50': 10 * scale, 'ttft.p99': 20 * scale, 'tpot.p50': 3 * scale, 'itl.p99': 6 * scale, 'throughput.output_tps': 300 / scale, 'queue_wait.p99': 2 * scale },
    })),
  } as unknown as LabRunResult;
}

describe('--compare text', () => {
  it('lines every figure up under its column, and says which p99s come from few requests', () => {
    const sim = run(1, 'sim', [4, 64], 1.1);
    const measured = run(2, 'cpu', [4, 64], 1);
    const text = predictionText(sim, measured, predictionRows(sim, measured));
    const rows = text.split('\n').filter((line) => /^ {2}(metric|TTFT|TPOT|ITL|output|queue)/.test(line));
    // Every row's error ends in the same column (the longest label, "output throughput (tok/s)", included).
    expect(new Set(rows.map((line) => line.length)).size).toBe(1);
    expect(text).toContain('output throughput (tok/s)');
    expect(text).toContain('TTFT p99 and queue wait p99 at workload.requests=4 come from 12 requests: under 100, a p99 is about the slowest');
    const enough = predictionText(run(1, 'sim', [64], 1.1), run(2, 'cpu', [64], 1), predictionRows(run(1, 'sim', [64], 1.1), run(2, 'cpu', [64], 1)));
    expect(enough).not.toContain('come from');
  });

  it('says when the device is not a profile of the measured backend: the errors then compare two machines', () => {
    const calibrated = (backend: string) => ({ model: 'gpt2-tiny', source: { kind: 'calibrated', backend } }) as unknown as DeviceProfile;
    const published = { model: 'gpt2', source: { kind: 'published', hardware: 'an A100' } } as unknown as DeviceProfile;
    expect(foreignDeviceNote('H100', null, 'cpu', 'gpt2-tiny')).toMatch(/^Device H100 is a datasheet GPU, not this cpu backend: .* \(kb lab calibrate --backend cpu --model gpt2-tiny --name NAME\)/);
    expect(foreignDeviceNote('seed-003-gpu', published, 'cpu', 'gpt2')).toMatch(/^Device seed-003-gpu was fitted to a published table \(an A100\), not this cpu backend/);
    expect(foreignDeviceNote('mine', calibrated('webgpu'), 'cpu', 'gpt2-tiny')).toMatch(/^Device mine was calibrated on the webgpu backend, not this cpu backend/);
    expect(foreignDeviceNote('mine', calibrated('cpu'), 'cpu', 'gpt2-tiny')).toBeNull();
    // A profile of this backend and model is already here: it is the one to compare with
    // (the note told a learner who had just calibrated cpu-gpt2-tiny to calibrate one).
    expect(foreignDeviceNote('A100-40GB', null, 'cpu', 'gpt2-tiny', ['cpu-gpt2-tiny'])).toMatch(
      /^Device A100-40GB is a datasheet GPU, not this cpu backend: .*To check the simulator, compare with the profile calibrated here on cpu for gpt2-tiny: --set device=cpu-gpt2-tiny\.$/,
    );
    expect(foreignDeviceNote('H100', null, 'cpu', 'gpt2-tiny', ['a', 'b'])).toContain('with a profile calibrated here on cpu for gpt2-tiny: --set device=a (or b).');
    expect(foreignDeviceNote('H100', null, 'cpu', 'gpt2-tiny', [])).toContain('kb lab calibrate --backend cpu --model gpt2-tiny --name NAME');
    // Said before the runs too (on stderr, so a learner can stop minutes of gpt2 on the cpu), where no error is above yet.
    expect(foreignDeviceNote('seed-003-gpu', published, 'cpu', 'gpt2', [], 'before')).toMatch(
      /^Device seed-003-gpu was fitted to a published table \(an A100\), not this cpu backend: the errors this comparison will print compare two machines, not the simulator with a measurement\. To check the simulator, calibrate/,
    );
    expect(foreignDeviceNote('mine', calibrated('cpu'), 'cpu', 'gpt2-tiny', [], 'before')).toBeNull();
    const sim = run(1, 'sim', [64], 1.1);
    const measured = run(2, 'cpu', [64], 1);
    expect(predictionText(sim, measured, predictionRows(sim, measured), 'Device H100 is a datasheet GPU.')).toContain('\nDevice H100 is a datasheet GPU.\nBoth runs are stored');
  });

  it('compares no figure of a point the measured run was interrupted in, or never reached, and says so', () => {
    // Ctrl-C during --compare cpu's measured run: the stopped point's figures (the requests that
    // finished first) were set against the sim's whole point as if measured, with "-88%" errors
    // and only "One of the runs is incomplete: compare with care" at the end.
    const sim = { ...run(1, 'sim', [4, 64, 256], 1.1), sweep: { key: 'engine.prefixCaching', labels: ['4', '64', '256'] } } as LabRunResult;
    const measured = run(2, 'cpu', [4, 64], 1);
    measured.status = 'partial';
    measured.note = 'interrupted: 1 of 3 points completed';
    measured.points[1].partial = true;
    measured.points[1].metrics = { ...measured.points[1].metrics, requests: 120 };
    const rows = predictionRows(sim, measured);
    expect(rows.filter((r) => r.point === '4').every((r) => r.measured !== null && r.errorPct !== null)).toBe(true);
    expect(rows.filter((r) => r.point !== '4').every((r) => r.measured === null && r.errorPct === null)).toBe(true);
    const text = predictionText(sim, measured, rows);
    expect(text).toContain('\n  at engine.prefixCaching=64: not compared, the measured run was interrupted here (120 of 192 requests finished)\n');
    expect(text).toContain('\n  at engine.prefixCaching=256: not compared, the measured run stopped before it\n');
    expect(text).toContain('6 of 6 figures within 15%');
    expect(text).toContain('Measured run #2 stopped short (interrupted: 1 of 3 points completed): only what it measured to the end is compared.');
    expect(text).not.toContain('compare with care');
    // Stopped before any request finished: no table of dashes.
    const single = (backend: string, runId: number) => ({ ...run(runId, backend, [16], 1), sweep: null, points: [{ ...run(runId, backend, [16], 1).points[0], label: null }] }) as unknown as LabRunResult;
    const nothing = { ...single('cpu', 4), status: 'partial', note: 'interrupted before any request finished: nothing was measured', points: [] } as unknown as LabRunResult;
    const empty = predictionText(single('sim', 3), nothing, predictionRows(single('sim', 3), nothing));
    expect(empty).not.toContain('TTFT p50');
    expect(empty).toContain('Measured run #4 stopped short (interrupted before any request finished: nothing was measured), so nothing is compared.');
  });
});
