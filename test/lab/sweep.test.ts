// A lab that sweeps one setting: every point runs, `name@label` checks compare points, a
// check without `@` must hold everywhere, and --points narrows the sweep.
import { describe, expect, it } from 'vitest';
import { parseLab } from '../../src/lab/lab-file.ts';
import { labRunText } from '../../src/lab/report-text.ts';
import { runLab } from '../../src/lab/run.ts';
import { SettingError } from '../../src/lab/lab-settings.ts';
import { openDatabase } from '../../src/store/db.ts';

const sweepLab = parseLab(
  `---
title: Admission cap sweep
summary: The same burst at three admission caps.
backend: sim
warmup: 0
engine:
  maxNumSeqs: 128
  maxBatchedTokens: 4096
workload:
  requests: 128
  promptTokens: 8
  outputTokens: 8
sweep:
  key: engine.prefillMaxBatch
  values: [8, 32, 128]
expect:
  - metric: ttft.p99@128 / ttft.p99@8
    op: "<"
    value: 0.5
    say: lifting the cap from 8 to 128 at least halves TTFT p99
  - metric: prefill_first.p99
    op: ">"
    value: 0
    say: every point spends some time in prefill
---
Body.
`,
  'cap-sweep',
);

const lengthLab = parseLab(
  `---
title: TTFT vs prompt length
summary: One request at a time, prompts swept.
backend: sim
warmup: 0
engine:
  maxNumSeqs: 1
  prefillMaxBatch: 1
  maxBatchedTokens: 1024
workload:
  requests: 1
  promptTokens: 16
  outputTokens: 1
sweep:
  key: workload.promptTokens
  values: [16, 32, 64, 128, 256, 512, 1023]
chart:
  kind: line
  y: [ttft.p50]
  logX: true
  fit: power
expect:
  - metric: fit.exponent_high
    op: ">="
    value: -100
    say: the longer half grows at all
  - metric: ttft.p50
    op: ">"
    value: 0
    say: every point takes some time
---
Body.
`,
  'length-sweep',
);

describe('sweep labs', () => {
  it('runs every point, judges checks across points, and prints each point', async () => {
    const db = openDatabase(':memory:');
    const progress = new Set<string>();
    const result = await runLab({ db, lab: sweepLab, overrides: [], onProgress: (p) => progress.add(`${p.point} ${p.pointIndex + 1}/${p.points}`) });
    expect(result.status).toBe('ok');
    expect(result.points.map((p) => p.label)).toEqual(['8', '32', '128']);
    expect(result.points.map((p) => p.settings.engine.prefillMaxBatch)).toEqual([8, 32, 128]);
    expect([...progress]).toEqual(['8 1/3', '32 2/3', '128 3/3']);
    expect(result.checks.map((c) => c.pass)).toEqual([true, true]);
    expect(result.verdict).toBe('reproduced');
    const text = labRunText(result);
    expect(text).toMatch(/--- engine\.prefillMaxBatch = 8 ---[\s\S]*--- engine\.prefillMaxBatch = 32 ---[\s\S]*--- engine\.prefillMaxBatch = 128 ---/);
    expect(text).toMatch(/prefill_first\.p99 = .* \(worst at \d+\)/);
    // Each command on a line of its own (run together, a narrow panel broke one across two).
    expect(text).toMatch(/\. {2}Past runs: kb lab history cap-sweep\nThe exercise: kb lab show cap-sweep\n$/);
    db.close();
  });

  it('--points runs a subset; a check naming a point left out cannot be judged', async () => {
    const db = openDatabase(':memory:');
    const result = await runLab({ db, lab: sweepLab, overrides: [], points: ['8', '32'] });
    expect(result.points.map((p) => p.label)).toEqual(['8', '32']);
    // It said "ttft.p99 was not measured", as if the metric were missing at every point it ran.
    expect(result.checks[0]).toMatchObject({ pass: null, problem: 'point 128 was not measured in this run, which measured 8 and 32' });
    expect(result.checks[1].pass).toBe(true);
    expect(result.verdict).toBe('incomplete');
    // The report names the point --points left out and the command that runs it too.
    const text = labRunText(result);
    expect(text).not.toMatch(/ttft\.p99 was not measured/);
    expect(text).toContain('  --points left out 128, which an expectation above needs. To judge them:\n    kb lab cap-sweep --points 8,32,128\n');
    await expect(runLab({ db, lab: sweepLab, overrides: [], points: ['9'] })).rejects.toThrow(SettingError);
    db.close();
  });

  it('--points leaves the sweep\'s fit, knee and SLO unjudged: made over a subset, they are another curve\'s', async () => {
    const db = openDatabase(':memory:');
    // `--points 16,32,64,128` judged "the longer half grows faster than linearly" on 64 and 128
    // (and with 3 points said only "fit.exponent_high was not measured").
    for (const [points, leftOut] of [
      [['16', '32', '64', '128'], '256, 512 and 1023'],
      [['16', '64', '256'], '32, 128, 512 and 1023'],
    ] as const) {
      const result = await runLab({ db, lab: lengthLab, overrides: [], points });
      expect(result.checks[0]).toMatchObject({ pass: null, problem: `--points left out ${leftOut}: the sweep's fit, knee and SLO limit need every point` });
      expect(result.checks[1].pass).toBe(true);
      expect(result.verdict).toBe('incomplete');
      const text = labRunText(result);
      expect(text).not.toMatch(/was not measured/);
      expect(text).toContain("  --points left out points that the sweep's fit, knee and SLO limit need. To judge them, the whole sweep:\n    kb lab length-sweep\n");
    }
    // The whole sweep judges it.
    expect((await runLab({ db, lab: lengthLab, overrides: [] })).checks[0].pass).toBe(true);
    db.close();
  });
});
