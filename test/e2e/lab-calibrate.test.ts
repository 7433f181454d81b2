// kb lab calibrate, kb lab devices, --set device=<profile> and --compare through the real CLI.
// The CI calibration is the short sweep (--quick) of gpt2-tiny on the cpu backend; its
// prediction of a workload the sweep never ran is held to a tolerance wide enough for a shared
// CI machine (the 15% goal is measured by bench/sim-accuracy.ts, not asserted here).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, tempDir } from '../helpers/kb-cli.ts';
import { spawnKb } from '../helpers/kb-cli-async.ts';

const SLOW = 300_000;

interface Row {
  metric: string;
  predicted: number | null;
  measured: number | null;
  errorPct: number | null;
}

describe('kb lab calibrate', () => {
  // One retry: the calibration and the measured run are minutes apart on a machine shared with
  // other test files, and a load that changes between them moves the ratio past 4 now and then.
  it('calibrates gpt2-tiny on the cpu, saves a profile, lists it, and predicts a held-out workload', { timeout: SLOW, retry: 1 }, () => {
    const data = tempDir();
    const env = { XDG_DATA_HOME: data, KB_DB: join(tempDir(), 'kb.db') };
    // COLUMNS: the report's lines unwrapped (a pipe takes $COLUMNS), so its sentences are matched whole.
    const calibrated = runKb(['lab', 'calibrate', '--quick', '--name', 'ci-tiny'], { env: { ...env, COLUMNS: '400' }, timeoutMs: SLOW });
    expect(calibrated.code, calibrated.stderr).toBe(0);
    expect(calibrated.stdout).toMatch(/Device profile "ci-tiny" for gpt2-tiny: calibrated here on \d{4}-\d\d-\d\d from cpu/);
    for (const term of ['stepMs', 'tokenMs', 'attendedMs', 'sampledMs', 'prefillPassMs']) expect(calibrated.stdout).toContain(term);
    expect(calibrated.stdout).toMatch(/Fit: R² -?\d\.\d{3}/);
    expect(calibrated.stdout).toMatch(/decode +\d+ steps +median error [\d.]+% +worst [\d.]+%/);
    expect(calibrated.stdout).toMatch(/Spread of measured steps around the fit: p10 [\d.]+x, p50 [\d.]+x, p90 [\d.]+x, p99 [\d.]+x \(mean [\d.]+x\); the sim draws each step's time from it/);
    expect(calibrated.stdout).toMatch(/KV capacity the profile carries:\n  memory [\d.]+ MiB - weights [\d.]+ MiB - reserve 0\.0 MiB = KV 512\.0 MiB/);
    const path = join(data, 'kb', 'devices', 'ci-tiny.json');
    expect(existsSync(path)).toBe(true);
    const profile = JSON.parse(readFileSync(path, 'utf8'));
    expect(profile.model).toBe('gpt2-tiny');
    expect(profile.terms.stepMs + profile.terms.sampledMs).toBeGreaterThan(0);
    expect(profile.spread).toHaveLength(101);
    expect(profile.spreadBySize?.[0]).toMatchObject({ fromMs: 0, quantiles: expect.any(Array) });

    const devices = runKb(['lab', 'devices'], { env });
    expect(devices.code, devices.stderr).toBe(0);
    expect(devices.stdout).toMatch(/^A100-40GB +datasheet/m);
    // Each device's lines as one: its source and fit wrap to the terminal (80 columns when piped).
    const entries = devices.stdout.replace(/\n {2,}/g, ' ');
    expect(entries).toMatch(/^seed-003-gpu +published, for gpt2: fitted to a table, not predicted table: +seed 003/m);
    expect(entries).toMatch(/^ci-tiny +calibrated, for gpt2-tiny source: +this machine's cpu backend on \d{4}-\d\d-\d\d /m);

    // Held out: prompt and output lengths, admission cap and request count the sweep never ran.
    const held = ['--set', 'workload.requests=24', '--set', 'workload.promptTokens=40', '--set', 'workload.outputTokens=12', '--set', 'engine.prefillMaxBatch=6'];
    const compared = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'device=ci-tiny', ...held, '--compare', 'cpu', '--json'], { env, timeoutMs: SLOW });
    expect(compared.code, compared.stderr).toBe(0);
    const json = JSON.parse(compared.stdout) as {
      predicted: { backend: string; id: number };
      measured: { backend: string; id: number };
      comparison: Row[];
      stepCosts: { profile: string; overall: { steps: number; ratio: number }; byKind: Array<{ label: string }> };
    };
    expect(json.predicted.backend).toBe('sim');
    expect(json.measured.backend).toBe('cpu');
    expect(json.measured.id).toBe(json.predicted.id + 1);
    const byMetric = new Map(json.comparison.map((r) => [r.metric, r]));
    for (const metric of ['tpot.p50', 'throughput.output_tps']) {
      const row = byMetric.get(metric)!;
      // A shared CI machine swings step times 2-3x within a minute (and this test once missed
      // a factor of 3 with other test files running beside it): within a factor of 4, which
      // still catches a wrong unit or a missing term. The 15% goal is measured in bench/.
      expect(row.predicted! / row.measured!, metric).toBeGreaterThan(1 / 4);
      expect(row.predicted! / row.measured!, metric).toBeLessThan(4);
    }
    // The measured run's own steps against the profile's terms: a ratio, over the steps it traced.
    expect(json.stepCosts.profile).toBe('ci-tiny');
    expect(json.stepCosts.overall.steps).toBeGreaterThanOrEqual(5);
    expect(json.stepCosts.overall.ratio).toBeGreaterThan(1 / 4);
    expect(json.stepCosts.overall.ratio).toBeLessThan(4);
    expect(json.stepCosts.byKind.map((k) => k.label)).toContain('decode');

    // COLUMNS: no line of the comparison wrapped (a pipe takes $COLUMNS), so its sentences are matched whole.
    const text = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'device=ci-tiny', ...held, '--compare', 'cpu'], { env: { ...env, COLUMNS: '400' }, timeoutMs: SLOW });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/=== ttft-breakdown: sim prediction vs measured run ===/);
    expect(text.stdout).toMatch(/TPOT p50 \(ms\) +[\d.]+ +[\d.]+ +[+-][\d.]+%/);
    expect(text.stdout).toMatch(/\d of \d+ figures within 15%; worst [\d.]+%\./);
    expect(text.stdout).toContain('TTFT p99 and queue wait p99 here come from 24 requests: under 100');
    // A profile calibrated on the backend it is checked against: no word on comparing two machines.
    expect(text.stdout).not.toContain('compare two machines');
    expect(text.stdout).toMatch(/Step costs: the measured run's \d+ steps took [\d.]+x the time ci-tiny's terms give for the same shapes \(median; decode [\d.]+x over \d+/);
  });

  it('refuses bad flags with one line and saves nothing', () => {
    const data = tempDir();
    const env = { XDG_DATA_HOME: data };
    expect(runKb(['lab', 'calibrate', '--backend', 'sim'], { env }).stderr).toBe('kb: --backend: calibrate runs on cpu or webgpu, got "sim"\n');
    expect(runKb(['lab', 'calibrate', '--model', 'gpt5'], { env }).stderr).toMatch(/^kb: --model: unknown model "gpt5"; choose one of gpt2-tiny, gpt2/);
    expect(runKb(['lab', 'calibrate', '--name', '../x'], { env }).stderr).toMatch(/^kb: --name "\.\.\/x": use letters/);
    expect(runKb(['lab', 'calibrate', '--name', 'H100'], { env }).stderr).toBe('kb: --name "H100" is a device kb ships; choose another name\n');
    // Names compare without case: `--name h100` was accepted, and --set device=h100 then ran this cpu's profile.
    expect(runKb(['lab', 'calibrate', '--name', 'h100'], { env }).stderr).toBe('kb: --name "h100" is H100, a device kb ships, but for case (device names compare without case); choose another name\n');
    expect(runKb(['lab', 'calibrate', '--name', 'Seed-003-GPU'], { env }).stderr).toMatch(/^kb: --name "Seed-003-GPU" is seed-003-gpu, a device kb ships, but for case/);
    expect(existsSync(join(data, 'kb', 'devices'))).toBe(false);
  });

  it('Ctrl-C or SIGTERM stops the sweep: nothing saved, exit 130 as for every interrupted command', async () => {
    const data = tempDir();
    const { child, done } = spawnKb(['lab', 'calibrate', '--quick', '--name', 'stopped'], { env: { XDG_DATA_HOME: data } });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const started = Date.now();
    while (!/requests/.test(stderr) && Date.now() - started < 60_000) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGTERM');
    const run = await done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('kb: calibration interrupted: nothing saved\n');
    expect(existsSync(join(data, 'kb', 'devices', 'stopped.json'))).toBe(false);
  }, 90_000);
});

/** A profile calibrated on this cpu, as a file would hold it. */
const hereCpu = {
  format: 1,
  name: 'here-cpu',
  model: 'gpt2-tiny',
  source: { kind: 'calibrated', backend: 'cpu', device: 'cpu, 2 threads', at: '2026-11-25T10:00:00.000Z', steps: 100, wallMs: 5000 },
  terms: { stepMs: 2, tokenMs: 0.05, attendedMs: 1e-4, sampledMs: 0.4, prefillPassMs: 0 },
  kv: { memoryBytes: 600 * 2 ** 20, weightBytes: 88 * 2 ** 20, reserveBytes: 0, dtypeBytes: 4 },
  fit: { r2: 0.95, byKind: [{ kind: 'decode', steps: 80, medianPct: 4.5, worstPct: 20 }], kept: 100, outliers: 2 },
};

describe('--set device=<profile>', () => {
  it('refuses an unknown device, a profile of another model, and a broken profile file, each in one line', () => {
    const data = tempDir();
    const env = { XDG_DATA_HOME: data, KB_DB: join(tempDir(), 'kb.db') };
    const unknown = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'device=nope'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^kb: device "nope": no such device or profile; known: A100-40GB, .*seed-003-gpu.*\(see kb lab devices/);
    // The engine's this-cpu (bench/ hands it measured figures) is not offered to a lab, where it
    // could only fail once the run had started (found as a user).
    expect(unknown.stderr).not.toContain('this-cpu');
    const engineOnly = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'device=this-cpu'], { env });
    expect(engineOnly).toMatchObject({ code: 1, stderr: expect.stringMatching(/^kb: device "this-cpu": no such device or profile;/) });
    expect(runKb(['lab', 'history', 'ttft-breakdown'], { env }).stdout).not.toContain('failed');
    const otherModel = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'device=seed-003-gpu'], { env });
    expect(otherModel.code).toBe(1);
    expect(otherModel.stderr).toBe(
      'kb: device "seed-003-gpu" was fitted on gpt2, and its costs are per step of that model; this run uses gpt2-tiny: set model=gpt2, or calibrate one for gpt2-tiny (kb lab calibrate --model gpt2-tiny)\n',
    );
    mkdirSync(join(data, 'kb', 'devices'), { recursive: true });
    writeFileSync(join(data, 'kb', 'devices', 'broken.json'), '{"format": 1, "name": "broken"');
    const broken = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'device=broken'], { env });
    expect(broken.code).toBe(1);
    // One line, saying what to do: calibrate it again under its name, for the run's model, or remove it.
    expect(broken.stderr).toMatch(/^kb: .*broken\.json: not a readable JSON device profile \(.*\); calibrate it again \(kb lab calibrate --name broken --model gpt2-tiny\) or remove the file\n$/);
    const devices = runKb(['lab', 'devices'], { env });
    expect(devices.code).toBe(0);
    expect(devices.stdout.replace(/\n {2,}/g, ' ')).toMatch(/^broken +\(broken\) .*broken\.json: not a readable JSON device profile .*or remove the file$/m);
    expect(runKb(['lab', 'history', 'ttft-breakdown', '--json'], { env }).stdout).toMatch(/"runs": \[\]/);
  });

  it('takes a profile\'s name from its file, and refuses one named as a device kb ships, case aside', () => {
    const data = tempDir();
    const env = { XDG_DATA_HOME: data, KB_DB: join(tempDir(), 'kb.db') };
    const dir = join(data, 'kb', 'devices');
    mkdirSync(dir, { recursive: true });
    // A copy renamed by hand ran as "simulated cpu-gpt2-tiny" when asked for as mine.
    writeFileSync(join(dir, 'mine.json'), JSON.stringify({ ...hereCpu, name: 'cpu-gpt2-tiny' }));
    const mine = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'device=mine', '--json'], { env });
    expect(mine.code, mine.stderr).toBe(0);
    expect(JSON.parse(mine.stdout).device).toMatch(/^sim, simulated mine \(/);
    expect(mine.stdout).not.toContain('cpu-gpt2-tiny');
    // A profile file named h100 (calibrated before names compared without case, or by hand) is no
    // device of its own beside the built-in H100, and no H100 either: one line says to rename it.
    writeFileSync(join(dir, 'h100.json'), JSON.stringify({ ...hereCpu, name: 'h100' }));
    const clash = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'device=h100'], { env });
    expect(clash).toMatchObject({ code: 1, stdout: '' });
    expect(clash.stderr).toMatch(/^kb: .*h100\.json: "h100" is H100, a device kb ships, but for case \(device names compare without case\): rename the file\n$/);
    const devices = runKb(['lab', 'devices'], { env: { ...env, COLUMNS: '400' } });
    expect(devices.stdout).toMatch(/^h100 +\(broken\) .*h100\.json: "h100" is H100/m);
    expect(devices.stdout).toMatch(/^mine +calibrated, for gpt2-tiny$/m);
    // Without the file, h100 is a typo of H100.
    rmSync(join(dir, 'h100.json'));
    expect(runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--set', 'device=h100'], { env }).stderr).toMatch(/^kb: device "h100": no such device or profile; did you mean H100\? known: /);
  });

  it('kb lab devices reads one labelled line at a time at 80 and 200 columns, and marks a poor fit', () => {
    const data = tempDir();
    const dir = join(data, 'kb', 'devices');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'here-cpu.json'), JSON.stringify(hereCpu));
    // calibrate warned of this fit (below R² 0.95); the listing said nothing of it.
    writeFileSync(join(dir, 'busy.json'), JSON.stringify({ ...hereCpu, fit: { ...hereCpu.fit, r2: 0.62 } }));
    for (const columns of [80, 200]) {
      const devices = runKb(['lab', 'devices'], { env: { XDG_DATA_HOME: data, COLUMNS: String(columns) } });
      expect(devices.code, devices.stderr).toBe(0);
      const lines = devices.stdout.split('\n');
      expect(lines.every((line) => line.length < Math.min(columns, 101))).toBe(true);
      // Each entry: what it is beside its name, then one labelled line each, the text in one column.
      const seed = lines.findIndex((line) => line.startsWith('seed-003-gpu '));
      expect(lines[seed]).toBe('seed-003-gpu  published, for gpt2: fitted to a table, not predicted');
      const labels = lines.slice(seed + 1).map((line) => /^ {14}(\w+):/.exec(line)?.[1]).filter(Boolean);
      expect(labels.slice(0, 7)).toEqual(['table', 'machine', 'fit', 'source', 'fit', 'warning', 'source']);
      const entries = devices.stdout.replace(/\n {2,}/g, ' ');
      expect(entries).toMatch(/^busy +calibrated, for gpt2-tiny source: +this machine's cpu backend on 2026-11-25 \(cpu, 2 threads\) fit: +R² 0\.620, median error ≤ 4\.5% per step kind warning: +a poor fit \(R² 0\.620\): the sim will be off on this profile\. Calibrate again when the machine is quiet: kb lab calibrate --model gpt2-tiny --name busy$/m);
      expect(entries).toMatch(/^here-cpu +calibrated, for gpt2-tiny source: .* fit: +R² 0\.950, median error ≤ 4\.5% per step kind$/m);
      expect(entries).toMatch(/^H100 +datasheet GPU figures: +989 TFLOP\/s, .* fit: +not checked against a measurement$/m);
    }
  });

  it('calibrating over a broken profile of that name says it replaced it', { timeout: SLOW }, () => {
    const data = tempDir();
    mkdirSync(join(data, 'kb', 'devices'), { recursive: true });
    writeFileSync(join(data, 'kb', 'devices', 'cut.json'), '{"format": 1,');
    const calibrated = runKb(['lab', 'calibrate', '--quick', '--name', 'cut'], { env: { XDG_DATA_HOME: data, COLUMNS: '400' }, timeoutMs: SLOW });
    expect(calibrated.code, calibrated.stderr).toBe(0);
    expect(calibrated.stdout).toMatch(/^Saved to .*cut\.json \(replacing a broken profile file of that name, which kb could not read\)$/m);
    // A hop too short to time reads as such, not "0.000 ms".
    expect(calibrated.stdout).toMatch(/^And once per request: (under 0\.01|\d+\.\d+) ms from submit until the scheduler sees it/m);
    expect(calibrated.stdout).not.toContain(' 0.000 ms from submit');
  });

  it('--compare says before the runs that a device of another machine makes it a comparison of two machines', async () => {
    // It said so only under the table, after minutes of gpt2 on the cpu: too late to Ctrl-C.
    const env = { KB_DB: join(tempDir(), 'kb.db'), XDG_DATA_HOME: tempDir() };
    const { child, done } = spawnKb(['lab', 'ttft-breakdown', '--preset', 'seed-003', '--compare', 'cpu'], { env, timeoutMs: 90_000 });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const started = Date.now();
    while (!stderr.includes('two machines') && child.exitCode === null && Date.now() - started < 60_000) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGTERM');
    const run = await done;
    expect(run.stderr).toContain(
      'kb: Device seed-003-gpu was fitted to a published table (a CUDA GPU (taken to be a 12 GiB RTX 4070: the table itself says only "cuda") under a Python serving loop with CUDA graphs for decode), not this cpu backend: the errors this comparison will print compare two machines, not the simulator with a measurement. To check the simulator, calibrate a profile here (kb lab calibrate --backend cpu --model gpt2 --name NAME) and compare with --set device=NAME.\n',
    );
    // Stopped there, before the measured run: nothing compared.
    expect(run.code).toBe(130);
  }, 90_000);

  it('--compare against a datasheet GPU names the profile calibrated here for the backend and model, rather than say to calibrate one', { timeout: SLOW }, () => {
    const data = tempDir();
    const env = { XDG_DATA_HOME: data, KB_DB: join(tempDir(), 'kb.db'), COLUMNS: '400' };
    mkdirSync(join(data, 'kb', 'devices'), { recursive: true });
    writeFileSync(join(data, 'kb', 'devices', 'here-cpu.json'), JSON.stringify(hereCpu));
    // A profile of another model is no answer for this run.
    writeFileSync(join(data, 'kb', 'devices', 'other-model.json'), JSON.stringify({ ...hereCpu, name: 'other-model', model: 'gpt2' }));
    const small = ['--set', 'workload.requests=4', '--set', 'workload.outputTokens=4'];
    const compared = runKb(['lab', 'ttft-breakdown', '--backend', 'sim', ...small, '--compare', 'cpu'], { env, timeoutMs: SLOW });
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toContain(
      'Device A100-40GB is a datasheet GPU, not this cpu backend: the errors above compare two machines, not the simulator with a measurement. To check the simulator, compare with the profile calibrated here on cpu for gpt2-tiny: --set device=here-cpu.\n',
    );
    expect(compared.stdout).not.toContain('kb lab calibrate');
  });

  it('--compare needs the sim and a real backend', () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    expect(runKb(['lab', 'ttft-breakdown', '--compare', 'cpu'], { env }).stderr).toBe('kb: --compare cpu checks the sim against a measurement: add --backend sim\n');
    expect(runKb(['lab', 'ttft-breakdown', '--backend', 'sim', '--compare', 'sim'], { env }).stderr).toBe('kb: --compare: a real backend to measure on, cpu or webgpu (got "sim")\n');
  });
});

describe('kb lab ttft-breakdown --preset seed-003', () => {
  // Seed 003's "after" table: the run the profile was not fitted to.
  const AFTER = { 'queue_wait.p99': 513.31, 'ttft.p50': 414.69, 'ttft.p99': 523.75, 'tpot.p50': 19.64, 'throughput.output_tps': 9594.75 };

  it('reproduces the seed\'s queue wait, TTFT, TPOT and throughput within 10%, and shows its source', () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const r = runKb(['lab', 'ttft-breakdown', '--preset', 'seed-003', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as { settings: { model: string; device: string }; device: string; points: Array<{ metrics: Record<string, number> }> };
    expect(run.settings).toMatchObject({ model: 'gpt2', device: 'seed-003-gpu' });
    expect(run.device).toMatch(/^sim, simulated seed-003-gpu \(fitted step costs\); each request reaches the scheduler \d+ ms after it is sent \(counted in queue wait\); KV capacity: 12\.00 GiB memory - [\d.]+ MiB weights - 1\.20 GiB reserve = [\d.]+ GiB -> \d+ blocks x 16 tokens( \(capped: \d+ sequences x \d+ tokens\))?$/);
    const m = run.points[0].metrics;
    const off = (metric: keyof typeof AFTER) => Math.abs(m[metric] / AFTER[metric] - 1);
    for (const metric of Object.keys(AFTER) as Array<keyof typeof AFTER>) expect(off(metric), metric).toBeLessThan(0.1);
  });

  it('then answers what another admission cap would have done on that machine', () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const base = JSON.parse(runKb(['lab', 'ttft-breakdown', '--preset', 'seed-003', '--json'], { env }).stdout);
    const wider = runKb(['lab', 'ttft-breakdown', '--preset', 'seed-003', '--set', 'engine.prefillMaxBatch=64', '--json'], { env });
    expect(wider.code, wider.stderr).toBe(0);
    const w = JSON.parse(wider.stdout);
    // Four waves instead of sixteen: the waves' share of the wait shrinks; the ~370 ms every
    // request spent before that loop saw it does not.
    const [before, after] = [base, w].map((run) => run.points[0].metrics['queue_wait.p99'] as number);
    expect(after).toBeLessThan(before - 100);
    expect(after).toBeGreaterThan(370);
  });

  it('on a real backend leaves out the preset\'s device, saying so: it was stored and shown as what the cpu run changed', () => {
    // `--set device=` on a real backend is refused; the preset's device was kept without a word:
    // "Changed from the lab file: device=seed-003-gpu ..." under a run on the cpu, and in kb lab history.
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const small = ['--set', 'model=gpt2-tiny', '--set', 'workload.requests=4', '--set', 'workload.outputTokens=4'];
    const r = runKb(['lab', 'ttft-breakdown', '--preset', 'seed-003', '--backend', 'cpu', ...small, '--json'], { env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("kb: --preset seed-003: its device seed-003-gpu is what the sim backend models; left out on cpu\n");
    const run = JSON.parse(r.stdout) as { backend: string; changed: Record<string, unknown> };
    expect(run.backend).toBe('cpu');
    expect(Object.keys(run.changed)).toContain('workload.requests');
    expect(Object.keys(run.changed)).not.toContain('device');
    expect(runKb(['lab', 'history', 'ttft-breakdown'], { env }).stdout).not.toContain('seed-003-gpu');
  }, 120_000);

  it('refuses an unknown preset, naming the ones there are', () => {
    const r = runKb(['lab', 'ttft-breakdown', '--preset', 'seed-999'], { env: { KB_DB: join(tempDir(), 'kb.db') } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('kb: --preset seed-999: ttft-breakdown has the presets seed-003\n');
  });
});
