import { describe, expect, it } from 'vitest';
import { allHistoryText, historyJson, historyText, settingsChanges, startedAtText } from '../../src/lab/history.ts';
import { fitLines } from '../../src/ui/text/fit-lines.ts';
import { defaultSettings, applyOverrides, parseOverrides } from '../../src/lab/lab-settings.ts';
import { compareText } from '../../src/lab/compare.ts';
import { cardLabCheck } from '../../src/app/card-labs/card-lab-runner.ts';
import type { LabRunRow } from '../../src/store/lab-runs.ts';

function row(id: number, overrides: string[], metrics: Record<string, number> | null, status: LabRunRow['status'] = 'ok', finished = true): LabRunRow {
  const changed = parseOverrides(overrides);
  return {
    id,
    lab: 'demo',
    startedAt: Date.UTC(2026, 10, 22, 4, id),
    finishedAt: finished ? Date.UTC(2026, 10, 22, 4, id + 1) : null,
    status,
    backend: 'cpu',
    device: null,
    settings: { settings: applyOverrides(defaultSettings, changed), changed, sweep: null },
    result:
      metrics === null
        ? null
        : {
            verdict: metrics['queue_wait.p99'] / metrics['ttft.p99'] >= 0.8 ? 'reproduced' : 'not reproduced',
            note: null,
            points: [{ label: null, partial: false, metrics }],
            checks: [{ metric: 'queue_wait.p99 / ttft.p99', say: 'mostly queue', measured: 0, pass: true }],
          },
  };
}

describe('lab history', () => {
  it('lists runs newest first with the metrics their checks use, and compares the last two finished runs', () => {
    const runs = [
      row(3, [], null, 'partial', false), // still running, or killed: not compared
      row(2, ['engine.prefillMaxBatch=256'], { 'queue_wait.p99': 20, 'ttft.p99': 600, 'throughput.output_tps': 370 }),
      row(1, [], { 'queue_wait.p99': 5200, 'ttft.p99': 5800, 'throughput.output_tps': 400 }),
    ];
    const text = historyText('demo', 'Demo lab', runs);
    expect(text).toMatch(/^Runs of lab demo \(Demo lab\), newest first:/);
    expect(text).toMatch(/#3 .* unfinished/);
    // In columns: each as wide as its widest value.
    expect(text).toMatch(/ {2}#3 {2}\S+ \S+ {2}unfinished {2}- {15}cpu/);
    expect(text).toMatch(/ {2}#2 {2}\S+ \S+ {2}ok {10}not reproduced {2}cpu/);
    expect(text).toMatch(/#2 .* ok\s+not reproduced\s+cpu\s+engine\.prefillMaxBatch=256\n\s+queue_wait\.p99 20\.00 ms · ttft\.p99 600\.0 ms · throughput\.output_tps 370\.0 tokens\/s/);
    expect(text).toMatch(/#1 .* lab settings/);
    // #3 is newer but stopped short: the heading says these are the last two complete runs.
    expect(text).toContain('Last two complete runs compared (#1 -> #2; the newer one stopped short):');
    expect(text).toContain(`setting engine.prefillMaxBatch: ${defaultSettings.engine.prefillMaxBatch} -> 256`);
    expect(text).toMatch(/queue_wait\.p99\s+5200\.0 ms -> 20\.00 ms \(-100%\)/);
    expect(text).toMatch(/ttft\.p99\s+5800\.0 ms -> 600\.0 ms \(-90%\)/);
    expect(text).toMatch(/verdict: reproduced -> not reproduced/);
  });

  it('starts every compared value in one column, also after a metric name longer than the usual 24 characters', () => {
    const runs = [2, 1].map((id) => {
      const run = row(id, [], { 'queue_wait.p99': 20 * id, 'ttft.p99': 600, 'throughput.requests_per_s': 15 + id });
      (run.result as { checks: { metric: string }[] }).checks.push({ metric: 'throughput.requests_per_s' } as never);
      return run;
    });
    const text = historyText('demo', 'Demo lab', runs);
    const compared = text.split('\n').filter((line) => / -> .*\(/.test(line));
    expect(compared.map((line) => line.trim().split(/\s+/)[0])).toEqual(expect.arrayContaining(['queue_wait.p99', 'throughput.requests_per_s']));
    const valueColumns = new Set(compared.map((line) => line.search(/\S+ -> /)));
    expect(valueColumns.size).toBe(1);
    expect(compared.find((line) => line.includes('throughput.requests_per_s'))).toMatch(/throughput\.requests_per_s {2}/);
  });

  it('an interrupted single run shows no figures and is not compared (its throughput covers what finished before the stop)', () => {
    const interrupted = row(3, [], { 'queue_wait.p99': 900, 'ttft.p99': 1000, 'throughput.output_tps': 0 }, 'partial');
    (interrupted.result as { points: Array<{ partial: boolean }> }).points[0].partial = true;
    const runs = [interrupted, row(2, [], { 'queue_wait.p99': 20, 'ttft.p99': 600, 'throughput.output_tps': 370, 'tpot.p50': 30 }), row(1, [], { 'queue_wait.p99': 5200, 'ttft.p99': 5800, 'throughput.output_tps': 400, 'tpot.p50': 25 })];
    const text = historyText('demo', 'Demo lab', runs);
    expect(text).not.toContain('0.000 tokens/s');
    expect(text).toContain('Last two complete runs compared (#1 -> #2; the newer one stopped short):');
    // The headline figures are compared too, not only the checks' (the exercise asks about TPOT).
    expect(text).toMatch(/tpot\.p50\s+25\.00 ms\/token -> 30\.00 ms\/token \(\+20%\)/);
  });

  it('gives a failed run no verdict (it measured nothing)', () => {
    const failed = row(2, [], null, 'failed');
    failed.result = { verdict: 'incomplete', note: 'WebGPU found no adapter.', points: [], checks: [] } as never;
    const text = historyText('demo', 'Demo lab', [failed, row(1, [], { 'queue_wait.p99': 5200, 'ttft.p99': 5800, 'throughput.output_tps': 400 })]);
    expect(text).toMatch(/#2 +\S+ \S+ +failed +- +cpu/);
    expect(text).not.toMatch(/failed +incomplete/);
  });

  it('--json gives a lab without expectations the verdict "no expectations", also a run stored as "reproduced" before that verdict', () => {
    const old = row(1, [], { 'queue_wait.p99': 5200, 'ttft.p99': 5800, 'throughput.output_tps': 400 });
    old.result = { ...(old.result as object), verdict: 'reproduced', checks: [] } as never;
    const json = historyJson('demo', [old]) as { runs: Array<{ verdict: string | null }> };
    expect(json.runs[0].verdict).toBe('no expectations');
    expect(historyText('demo', 'Demo lab', [old])).toMatch(/#1 +\S+ \S+ +ok +- +cpu/);
    expect(compareText(old, old)).toMatch(/^ {2}verdict +- +-$/m);
  });

  it('names a device change only where a run simulated (the device is the sim\'s)', () => {
    const settings = (overrides: string[]) => ({ settings: applyOverrides(defaultSettings, parseOverrides(overrides)), changed: [], sweep: null });
    expect(settingsChanges(settings(['device=H100']), settings(['device=A100-40GB']))).toEqual([]);
    expect(settingsChanges(settings(['backend=sim', 'device=H100']), settings(['backend=sim', 'device=A100-40GB']))).toEqual(['device: H100 -> A100-40GB']);
    expect(settingsChanges(settings(['backend=sim', 'device=H100']), settings(['device=H100']))).toEqual(['backend: sim -> cpu', 'device: H100 -> not simulated']);
  });

  it('does not give a run on a real backend the sim\'s default device (kb lab compare of --compare cpu\'s two runs)', () => {
    // The cpu run of `--backend sim --set device=cpu-gpt2-tiny --compare cpu` stores the default
    // device, A100-40GB: "device: A100-40GB -> cpu-gpt2-tiny" read as if the cpu run had been an A100's.
    const settings = (overrides: string[]) => ({ settings: applyOverrides(defaultSettings, parseOverrides(overrides)), changed: [], sweep: null });
    expect(settingsChanges(settings([]), settings(['backend=sim', 'device=cpu-gpt2-tiny']))).toEqual(['backend: cpu -> sim', 'device: not simulated -> cpu-gpt2-tiny']);
    const measured = row(2, [], { 'queue_wait.p99': 1205, 'ttft.p99': 1334, 'throughput.output_tps': 1793 });
    const predicted = { ...row(3, ['backend=sim', 'device=cpu-gpt2-tiny'], { 'queue_wait.p99': 1115, 'ttft.p99': 1197, 'throughput.output_tps': 2250 }), backend: 'sim' };
    expect(compareText(measured, predicted)).not.toContain('A100');
    expect(historyText('demo', 'Demo lab', [predicted, measured])).toContain('setting device: not simulated -> cpu-gpt2-tiny');
  });

  it('lists every lab\'s runs in columns, the year left out when all are from this one', () => {
    const thisYear = new Date().getFullYear();
    const runs = [
      { ...row(12, ['engine.prefillMaxBatch=256'], null), lab: 'ttft-breakdown', startedAt: new Date(thisYear, 0, 2, 9, 5).getTime() },
      { ...row(3, [], null, 'partial', false), lab: 'batching', startedAt: new Date(thisYear, 0, 1, 18, 45).getTime() },
    ];
    const lines = allHistoryText(runs).split('\n');
    expect(lines[1]).toBe('  #12  01-02 09:05  ttft-breakdown  ok          -  cpu  engine.prefillMaxBatch=256');
    expect(lines[2]).toBe('  #3   01-01 18:45  batching        unfinished  -  cpu  lab settings');
    // Where a run's settings do not fit beside it, they go below it and the columns stay
    // (wrapped with the rest, a line a little too long lost them: found as a user at 80).
    const narrow = allHistoryText(runs, 68).split('\n');
    expect(narrow.slice(1, 4)).toEqual([
      '  #12  01-02 09:05  ttft-breakdown  ok          -  cpu',
      '        engine.prefillMaxBatch=256',
      '  #3   01-01 18:45  batching        unfinished  -  cpu  lab settings',
    ]);

  });

  it('gives a run\'s start in the learner\'s time zone', () => {
    const zone = process.env.TZ;
    try {
      process.env.TZ = 'Asia/Shanghai';
      expect(startedAtText(Date.UTC(2026, 10, 26, 10, 45))).toBe('2026-11-26 18:45');
      expect(startedAtText(Date.UTC(2026, 10, 26, 10, 45), false)).toBe('11-26 18:45');
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('tells two runs against a server apart by the client\'s concurrency cap, URL and model', () => {
    const endpointRun = (id: number, endpoint: { url: string; model: string; maxConcurrency: number | null }): LabRunRow => {
      const run = row(id, [], { 'queue_wait.p99': 20, 'ttft.p99': 600, 'throughput.output_tps': 370 });
      return { ...run, backend: 'endpoint', device: `${endpoint.url} · ${endpoint.model} · kb 0.1`, settings: { ...(run.settings as object), endpoint: { ...endpoint, serverVersion: 'kb 0.1' } } };
    };
    const capped = endpointRun(2, { url: 'http://127.0.0.1:8000/v1', model: 'gpt2-tiny', maxConcurrency: 16 });
    const open = endpointRun(1, { url: 'http://127.0.0.1:8000/v1', model: 'gpt2-tiny', maxConcurrency: null });
    const settingsOf = (run: LabRunRow) => run.settings as Parameters<typeof settingsChanges>[0];
    expect(settingsChanges(settingsOf(open), settingsOf(capped))).toEqual(['--max-concurrency: none -> 16']);
    expect(compareText(open, capped)).toContain('Settings that differ:\n  --max-concurrency: none -> 16\n');
    const elsewhere = endpointRun(3, { url: 'http://gpu:8000/v1', model: 'llama', maxConcurrency: 16 });
    expect(settingsChanges(settingsOf(capped), settingsOf(elsewhere))).toEqual(['--endpoint: http://127.0.0.1:8000/v1 -> http://gpu:8000/v1', '--model: gpt2-tiny -> llama']);
    const lines = allHistoryText([capped, open]).split('\n');
    expect(lines[1]).toMatch(/#2 .*endpoint http:\/\/127\.0\.0\.1:8000\/v1 · gpt2-tiny · kb 0\.1  --max-concurrency 16$/);
    expect(lines[2]).toMatch(/#1 .*endpoint http:\/\/127\.0\.0\.1:8000\/v1 · gpt2-tiny · kb 0\.1  lab settings$/);
  });

  it('does not read a server run\'s stored engine, backend and device as what ran (the server set them)', () => {
    // A run against `kb serve` stores the lab file's settings: compared with a sim run it read
    // "backend: sim -> cpu" and "device: seed-003-gpu -> A100-40GB", neither of which ran.
    const sim = row(1, ['backend=sim', 'device=H100', 'model=gpt2', 'engine.prefillMaxBatch=256'], { 'queue_wait.p99': 20, 'ttft.p99': 600, 'throughput.output_tps': 370 });
    const local = row(2, ['engine.prefillMaxBatch=256'], { 'queue_wait.p99': 20, 'ttft.p99': 600, 'throughput.output_tps': 370 });
    const served = row(3, [], { 'queue_wait.p99': 20, 'ttft.p99': 600, 'throughput.output_tps': 370 });
    served.backend = 'endpoint';
    served.settings = { ...(served.settings as object), endpoint: { url: 'http://127.0.0.1:8000/v1', model: 'gpt2-tiny', maxConcurrency: null } };
    const settingsOf = (run: LabRunRow) => run.settings as Parameters<typeof settingsChanges>[0];
    expect(settingsChanges(settingsOf(sim), settingsOf(served))).toEqual([
      'model: gpt2 -> set by the server',
      'backend: sim -> set by the server',
      'device: H100 -> set by the server',
      '--endpoint: - -> http://127.0.0.1:8000/v1',
      '--model: - -> gpt2-tiny',
    ]);
    expect(settingsChanges(settingsOf(local), settingsOf(served))).toEqual([
      'model: gpt2-tiny -> set by the server',
      'backend: cpu -> set by the server',
      '--endpoint: - -> http://127.0.0.1:8000/v1',
      '--model: - -> gpt2-tiny',
    ]);
    expect(compareText(sim, served)).not.toContain('A100');
  });

  it('rounds a check\'s measured value as the report and the lab panel do', () => {
    const check = { metric: 'prefill_first.p99 / ttft.p99', op: '<=', value: 0.2, say: 'small prefill', measured: 0.09071, at: null, pass: true, problem: null };
    const withCheck = (id: number) => {
      const run = row(id, [], { 'queue_wait.p99': 20, 'ttft.p99': 600, 'throughput.output_tps': 370 });
      return { ...run, result: { ...(run.result as object), checks: [check] } };
    };
    // compare printed 0.0907 where the report printed 0.091.
    expect(compareText(withCheck(1), withCheck(2))).toContain('#1 ✓ 0.091  #2 ✓ 0.091');
    expect(cardLabCheck(check).measured).toBe('prefill_first.p99 / ttft.p99 = 0.091; expected <= 0.2');
    // A metric at a point keeps its unit (the panel showed a bare number for "x@point").
    expect(cardLabCheck({ ...check, metric: 'ttft.p99@16', op: '>=', measured: 512.34 }).measured).toBe('ttft.p99@16 = 512.3 ms; expected >= 0.2');
  });

  it('says a sweep\'s knee and SLO as the swept value they fall at, with its unit, and what its slo.* figures count', () => {
    // It listed "knee.x 1.00 · knee.index 1.00" (a place among the points) and "slo.max_x 1.00 ·
    // slo.max_x_fraction 0.250" with no unit and no meaning.
    const sweepRow = (id: number, capacity: number, limitMs: number, maxX: number, knee: number): LabRunRow => {
      const labels = ['0.5', '1', '2', '4'];
      const changed = parseOverrides(['workload.requests=8']);
      return {
        ...row(id, [], null),
        lab: 'load-sweep',
        settings: { settings: applyOverrides(defaultSettings, changed), changed, sweep: { key: 'workload.rate', labels } },
        result: {
          verdict: 'reproduced',
          note: null,
          points: labels.map((label) => ({ label, partial: false, metrics: { 'ttft.p95': 10 * Number(label), 'slo.met_fraction': 1 / Number(label), 'throughput.output_tps': 400 } })),
          sweepMetrics: { 'slo.limit_ms': limitMs, 'slo.max_x': maxX, 'slo.max_x_fraction': maxX / 4, 'knee.x': knee, 'knee.index': labels.indexOf(String(knee)), 'load.capacity_rps': capacity },
          chart: {
            series: ['ttft.p95'],
            points: labels.map((label) => ({ label, x: Number(label) })),
            knee: { x: knee, label: String(knee) },
            slo: { metric: 'ttft.p95' },
          },
          checks: [{ metric: 'slo.met_fraction@0.5', say: 'most meet the SLO', measured: 1, pass: true }],
        },
      };
    };
    const runs = [sweepRow(2, 60.6, 19.48, 1, 1), sweepRow(1, 60.5, 59.86, 2, 2)];
    const text = historyText('load-sweep', 'Load sweep', runs);
    expect(text).not.toMatch(/knee\.(x|index)|slo\.(max_x|limit_ms)/);
    expect(text).toContain('        workload.rate: 0.5, 1, 2, 4 x capacity (60.6 req/s)\n        knee of ttft.p95 at 1x capacity (60.6 req/s)\n        SLO ttft.p95 <= 19.48 ms, met up to 1x capacity (60.6 req/s)\n');
    expect(text).toContain('knee of ttft.p95 at 2x capacity (121 req/s)');
    // The last two compared: the knee and the SLO's reach as swept values, each slo.* figure said.
    expect(text).toMatch(/ {2}knee of ttft\.p95 at +2x capacity -> 1x capacity\n/);
    expect(text).toMatch(/ {2}SLO ttft\.p95 <= +59\.86 ms -> 19\.48 ms \(-67%\)\n {2}SLO met up to +2x capacity -> 1x capacity\n/);
    expect(text).toContain("  where slo.met_fraction = share of the point's requests whose TTFT met the SLO\n");
    // Every line fits 80 columns as it is: none is wrapped out of its column.
    expect(fitLines(text, 79)).toBe(text);
    // A sweep of a setting: its unit ("at 16 requests").
    const requests = { ...sweepRow(3, 0, 0, 0, 16), settings: { settings: defaultSettings, changed: [], sweep: { key: 'workload.requests', labels: ['1', '16', '128'] } } };
    (requests.result as { sweepMetrics: Record<string, number> }).sweepMetrics = { 'knee.x': 16, 'knee.index': 1, 'roofline.ridge_batch': 7.9 };
    expect(historyText('batch-size-sweep', null, [requests])).toMatch(/knee of ttft\.p95 at 16 requests\n {8}roofline\.ridge_batch 7\.90 seqs\n/);
    // --json keeps every figure as stored.
    expect((historyJson('load-sweep', runs) as { runs: Array<{ result: { sweepMetrics: Record<string, number> } }> }).runs[0].result.sweepMetrics).toMatchObject({ 'knee.index': 1, 'slo.max_x': 1 });
    // kb lab compare: the same words across the sweep.
    const compared = compareText(runs[1], runs[0]);
    expect(compared).not.toMatch(/knee\.(x|index)|slo\.(max_x|limit_ms)/);
    expect(compared).toMatch(/Across the sweep:\n {2}capacity +60\.50 req\/s +60\.60 req\/s +\+0\.2%\n {2}knee of ttft\.p95 at +2x capacity +1x capacity\n/);
    expect(compared).toContain("  where slo.met_fraction = share of the point's requests whose TTFT met the SLO\n");
  });

  // Found as a user: `kb lab history ttft-vs-length` after a `--points 16,32` run read
  // "fit.exponent 0.796 -> 0.615 (-23%)", a fit over 8 points against one over 2, and a load
  // sweep stopped after 2 of its 4 points had its SLO limit compared with a whole one's. The
  // run's own report judges none of these figures: each describes the curve its run measured.
  it('compares no fit, knee or SLO limit between sweeps of different points, or with an interrupted one', () => {
    const fitRow = (id: number, labels: string[], k: number, status: LabRunRow['status'] = 'ok'): LabRunRow => ({
      ...row(id, [], null, status),
      lab: 'ttft-vs-length',
      settings: { settings: defaultSettings, changed: [], sweep: { key: 'workload.promptTokens', labels } },
      result: {
        verdict: 'reproduced',
        note: null,
        points: labels.map((label) => ({ label, partial: false, metrics: { 'ttft.p50': Number(label) / 10 } })),
        sweepMetrics: { 'fit.exponent': k, 'knee.x': Number(labels[1]), 'knee.index': 1, 'slo.limit_ms': 30, 'slo.max_x': Number(labels[1]), 'probe.bandwidth_gbs': 25 },
        chart: { series: ['ttft.p50'], points: labels.map((label) => ({ label, x: Number(label) })), knee: { x: Number(labels[1]), label: labels[1] }, slo: { metric: 'ttft.p50' } },
        checks: [{ metric: 'fit.exponent', say: 'grows', measured: k, pass: true }],
      },
    });
    const all = ['16', '32', '64', '128'];
    const whole = fitRow(1, all, 0.796);
    const narrowed = fitRow(2, ['16', '32'], 0.615);
    const text = historyText('ttft-vs-length', null, [narrowed, whole]);
    const compared = text.slice(text.indexOf('Last two runs compared'));
    expect(compared.replace(/ {2}not compared: the fit.*\n/, '')).not.toMatch(/fit\.exponent|knee of|SLO/);
    expect(compared).toContain('  not compared: the fit, knee and SLO limit (#1 measured points 16, 32, 64 and 128, #2 points 16 and 32)\n');
    // A figure of the machine, not of the curve's shape, is compared as before.
    expect(compared).toMatch(/probe\.bandwidth_gbs +25\.00 GB\/s -> 25\.00 GB\/s/);
    const side = compareText(whole, narrowed);
    expect(side.slice(side.indexOf('Across the sweep:')).replace(/ {2}not compared: the fit.*\n/, '')).not.toMatch(/fit\.exponent|knee of|SLO/);
    expect(side).toContain('  not compared: the fit, knee and SLO limit (#1 measured points 16, 32, 64 and 128, #2 points 16 and 32)\n');
    // An interrupted sweep's are not either; two whole sweeps' are.
    const cut = compareText(whole, fitRow(3, all, 0.5, 'partial'));
    expect(cut).toContain('  not compared: the fit, knee and SLO limit (#3 was interrupted)\n');
    expect(compareText(whole, fitRow(4, all, 0.9))).toMatch(/fit\.exponent +0\.796 +0\.900/);
  });
});
