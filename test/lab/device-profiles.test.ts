import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DeviceProfile, describeSource, fitSummary, listingLines, PROFILE_FORMAT, profileDevice } from '../../src/lab/devices/device-profile.ts';
import { listStoredProfiles, readProfile, saveProfile } from '../../src/lab/devices/profile-store.ts';
import { publishedProfiles, SEED_003_DEVICE } from '../../src/lab/devices/published-profiles.ts';
import { parseLab } from '../../src/lab/lab-file.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const profile: DeviceProfile = {
  format: PROFILE_FORMAT,
  name: 'mine',
  model: 'gpt2-tiny',
  source: { kind: 'calibrated', backend: 'cpu', device: 'cpu, 2 threads', at: '2026-11-25T10:00:00.000Z', steps: 100, wallMs: 5000 },
  terms: { stepMs: 2, tokenMs: 0.05, attendedMs: 1e-4, sampledMs: 0.4, prefillPassMs: 0 },
  kv: { memoryBytes: 600 * 2 ** 20, weightBytes: 88 * 2 ** 20, reserveBytes: 0, dtypeBytes: 4 },
  fit: { r2: 0.95, byKind: [{ kind: 'decode', steps: 80, medianPct: 4.5, worstPct: 20 }], kept: 100, outliers: 2 },
};

describe('device profiles', () => {
  it('round-trip through the store, and a broken file is listed with its error beside the good ones', () => {
    const dir = tempDir();
    const path = saveProfile(profile, dir);
    expect(readProfile(path)).toEqual(profile);
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...profile, name: 'bad', terms: { ...profile.terms, tokenMs: -1 } }));
    const listed = listStoredProfiles(dir);
    expect(listed.map((p) => p.name)).toEqual(['bad', 'mine']);
    expect(listed[0].error).toMatch(/bad\.json: not a valid device profile: terms\.tokenMs: /);
    expect(listed[1].profile).toEqual(profile);
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
  });

  it('keep a step spread of 101 quantiles, and refuse a file whose spread is not that, naming the field', () => {
    const dir = tempDir();
    const spread = Array.from({ length: 101 }, (_, i) => 0.8 + i / 100);
    const path = saveProfile({ ...profile, spread }, dir);
    expect(readProfile(path).spread).toEqual(spread);
    // A profile from before the tables by size: its one table serves every step.
    expect(profileDevice(readProfile(path)).stepSpread).toEqual([{ fromMs: 0, quantiles: spread }]);
    expect(profileDevice(profile).stepSpread).toBeUndefined();
    const bySize = [{ fromMs: 0, quantiles: spread }, { fromMs: 10, quantiles: spread.map((ratio) => ratio / 2) }];
    expect(profileDevice(readProfile(saveProfile({ ...profile, name: 'sized', spread, spreadBySize: bySize }, dir))).stepSpread).toEqual(bySize);
    writeFileSync(join(dir, 'short.json'), JSON.stringify({ ...profile, name: 'short', spread: [1, 2, 3] }));
    writeFileSync(join(dir, 'negative.json'), JSON.stringify({ ...profile, name: 'negative', spread: spread.map((ratio) => -ratio) }));
    const listed = listStoredProfiles(dir);
    expect(listed.find((p) => p.name === 'short')?.error).toMatch(/short\.json: not a valid device profile: spread: /);
    expect(listed.find((p) => p.name === 'negative')?.error).toMatch(/negative\.json: not a valid device profile: spread\.0: /);
    writeFileSync(join(dir, 'nosize.json'), JSON.stringify({ ...profile, name: 'nosize', spreadBySize: [] }));
    expect(listStoredProfiles(dir).find((p) => p.name === 'nosize')?.error).toMatch(/nosize\.json: not a valid device profile: spreadBySize: /);
  });

  it('take their name from the file: a copy renamed by hand is the name it is asked for by', () => {
    // cp cpu-gpt2-tiny.json mine.json, then --set device=mine ran as "simulated cpu-gpt2-tiny".
    const dir = tempDir();
    writeFileSync(join(dir, 'copy.json'), JSON.stringify(profile));
    expect(readProfile(join(dir, 'copy.json')).name).toBe('copy');
    expect(profileDevice(readProfile(join(dir, 'copy.json'))).name).toBe('copy');
    expect(listStoredProfiles(dir).map((p) => [p.name, p.profile?.name])).toEqual([['copy', 'copy']]);
    // A file no --set device= could name is said so, not listed as a device.
    writeFileSync(join(dir, 'my copy.json'), JSON.stringify(profile));
    expect(listStoredProfiles(dir).find((p) => p.name === 'my copy')?.error).toMatch(/my copy\.json: "my copy" is no device name \(letters, digits.*\): rename the file$/);
  });

  it('refuse a file named as a device kb ships, case aside', () => {
    // --name h100 was accepted beside the built-in H100, and --set device=h100 then ran a cpu profile.
    const dir = tempDir();
    writeFileSync(join(dir, 'h100.json'), JSON.stringify(profile));
    writeFileSync(join(dir, 'SEED-003-GPU.json'), JSON.stringify(profile));
    writeFileSync(join(dir, 'L4.json'), JSON.stringify(profile));
    const errors = Object.fromEntries(listStoredProfiles(dir).map((p) => [p.name, p.error]));
    expect(errors.h100).toMatch(/h100\.json: "h100" is H100, a device kb ships, but for case \(device names compare without case\): rename the file$/);
    expect(errors['SEED-003-GPU']).toMatch(/"SEED-003-GPU" is seed-003-gpu, a device kb ships, but for case/);
    expect(errors.L4).toMatch(/L4\.json: "L4" is a device kb ships: rename the file$/);
  });

  it('say what to do about a broken file: calibrate it again under its name and model, or remove it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'cut.json'), '{"format": 1, "name": "cut"');
    expect(() => readProfile(join(dir, 'cut.json'))).toThrow(/cut\.json: not a readable JSON device profile \(.*\); calibrate it again \(kb lab calibrate --name cut --model MODEL\) or remove the file$/);
    // The run's model, when the file cannot say its own.
    // JSON.parse quotes the text it stopped in, newline and all: still one line.
    writeFileSync(join(dir, 'lines.json'), 'not json\n');
    expect(() => readProfile(join(dir, 'lines.json'))).toThrow(/^[^\n]*lines\.json: not a readable JSON device profile \([^\n]*\); calibrate it again[^\n]*$/);
    expect(() => readProfile(join(dir, 'cut.json'), 'gpt2-tiny')).toThrow(/; calibrate it again \(kb lab calibrate --name cut --model gpt2-tiny\) or remove the file$/);
    // A file that still says its model and backend: those.
    writeFileSync(join(dir, 'gpu.json'), JSON.stringify({ ...profile, model: 'gpt2', source: { ...profile.source, backend: 'webgpu' }, terms: { ...profile.terms, tokenMs: -1 } }));
    expect(() => readProfile(join(dir, 'gpu.json'), 'gpt2-tiny')).toThrow(/terms\.tokenMs: .*; calibrate it again \(kb lab calibrate --name gpu --backend webgpu --model gpt2\) or remove the file$/);
  });

  it('list with one labelled line for where the numbers come from and one for the fit, and mark a poor fit', () => {
    const [seed] = publishedProfiles();
    const published = listingLines(seed);
    expect(published.head).toBe('published, for gpt2: fitted to a table, not predicted');
    expect(published.lines.map((l) => l.label)).toEqual(['table', 'machine', 'fit']);
    expect(published.lines[2].text).toBe('the sim is off the table by 1.1% at the median and 2.4% at worst, over its 4 figures');
    const good = listingLines(profile);
    expect(good).toEqual({
      head: 'calibrated, for gpt2-tiny',
      lines: [
        { label: 'source', text: "this machine's cpu backend on 2026-11-25 (cpu, 2 threads)" },
        { label: 'fit', text: 'R² 0.950, median error ≤ 4.5% per step kind' },
      ],
    });
    // calibrate warned of it (below R² 0.95, or a kind of step off by over 15%); kb lab devices said nothing.
    const poor = listingLines({ ...profile, fit: { ...profile.fit!, r2: 0.62, byKind: [{ kind: 'prefill', steps: 20, medianPct: 38.1, worstPct: 90 }] } });
    expect(poor.lines[2]).toEqual({
      label: 'warning',
      text: 'a poor fit (R² 0.620, prefill steps off by 38.1% at the median): the sim will be off on this profile. Calibrate again when the machine is quiet: kb lab calibrate --model gpt2-tiny --name mine',
    });
  });

  it('lists nothing when the folder does not exist yet', () => {
    expect(listStoredProfiles(join(tempDir(), 'absent'))).toEqual([]);
  });

  it('become a sim device carrying the fitted terms and the memory split', () => {
    const spec = profileDevice(profile);
    expect(spec.fitted).toEqual(profile.terms);
    expect(spec).toMatchObject({ name: 'mine', memoryBytes: profile.kv.memoryBytes, weightBytes: profile.kv.weightBytes, reserveBytes: 0, dtypeBytes: 4 });
    expect(describeSource(profile)).toBe('calibrated here on 2026-11-25 from cpu (cpu, 2 threads)');
    expect(fitSummary(profile)).toBe('step-time fit: R² 0.950, median error ≤ 4.5% per step kind');
  });

  it('ship the seed-003 profile, saying it was fitted to a published table', () => {
    const [seed] = publishedProfiles();
    expect(seed.name).toBe(SEED_003_DEVICE);
    expect(describeSource(seed)).toMatch(/^fitted to a published table: seed 003.*fitted, not predicted$/);
    expect(fitSummary(seed)).toMatch(/over 4 figures$/);
  });
});

describe('lab presets', () => {
  const lab = (presets: string) => `---\ntitle: A lab\nsummary: What it shows.\npresets:\n${presets}---\nBody.\n`;

  it('parse into overrides checked like --set', () => {
    const parsed = parseLab(lab('  big:\n    say: a bigger run\n    set:\n      model: gpt2\n      workload.requests: 99\n'), 'x');
    expect(parsed.presets).toEqual([{ name: 'big', say: 'a bigger run', overrides: [{ key: 'model', value: 'gpt2' }, { key: 'workload.requests', value: 99 }] }]);
  });

  it('refuse an unknown key and an out-of-range value, naming the line', () => {
    expect(() => parseLab(lab('  big:\n    say: s\n    set:\n      engine.nope: 1\n'), 'x')).toThrow(/lab\/x\.md:8: presets\.big\.set\.engine\.nope: unknown setting "engine\.nope"/);
    expect(() => parseLab(lab('  big:\n    say: s\n    set:\n      workload.requests: 0\n'), 'x')).toThrow(/presets\.big\.set\.workload\.requests: workload\.requests must be integer 1\.\.100000, got 0/);
  });
});
