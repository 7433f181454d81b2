import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DeviceProfile, describeSource, fitSummary, PROFILE_FORMAT, profileDevice } from '../../src/lab/devices/device-profile.ts';
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
