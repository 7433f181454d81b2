import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyOverrides,
  crossCheck,
  defaultSettings,
  diffSettings,
  getSetting,
  parseOverrides,
  SettingError,
  settingSpec,
  settingSpecs,
} from '../../src/lab/lab-settings.ts';

describe('--set parsing', () => {
  it('parses each kind of value into its type', () => {
    const overrides = parseOverrides([
      'engine.prefillMaxBatch=256',
      'engine.prefixCaching=off',
      'engine.policy=static',
      'workload.promptTokens=4..12',
      'workload.outputTokens=32',
      'workload.rate=2.5',
      'backend=sim',
    ]);
    expect(overrides).toEqual([
      { key: 'engine.prefillMaxBatch', value: 256 },
      { key: 'engine.prefixCaching', value: false },
      { key: 'engine.policy', value: 'static' },
      { key: 'workload.promptTokens', value: { min: 4, max: 12 } },
      { key: 'workload.outputTokens', value: { min: 32, max: 32 } },
      { key: 'workload.rate', value: 2.5 },
      { key: 'backend', value: 'sim' },
    ]);
  });

  it('refuses an unknown key in one line: the key, the closest valid one, where the keys are listed', () => {
    const error = (arg: string, accepts?: (key: string) => boolean) => {
      try {
        parseOverrides([arg], accepts);
      } catch (e) {
        expect(e).toBeInstanceOf(SettingError);
        return (e as Error).message;
      }
      throw new Error('no error');
    };
    // It went on with the whole key table, 27 lines more.
    expect(error('engine.prefilMaxBatch=4')).toBe('--set engine.prefilMaxBatch=4: unknown setting "engine.prefilMaxBatch"; did you mean engine.prefillMaxBatch? (kb lab --help lists the keys)');
    expect(error('nosuch=1')).toBe('--set nosuch=1: unknown setting "nosuch" (kb lab --help lists the keys)');
    // A key without its group, or in another case.
    expect(error('prefillMaxBatch=4')).toMatch(/; did you mean engine\.prefillMaxBatch\?/);
    expect(error('Workload.Requests=4')).toMatch(/; did you mean workload\.requests\?/);
    // Only among the keys the command takes (kb serve: engine.*).
    expect(error('engine.nosuch=1', (key) => key.startsWith('engine.'))).toBe('--set engine.nosuch=1: unknown setting "engine.nosuch" (kb lab --help lists the keys)');
    expect(error('engine.maxNumSeq=1', (key) => key.startsWith('engine.'))).toMatch(/did you mean engine\.maxNumSeqs\?/);
    expect(error('prefillMaxBatch')).toBe('--set prefillMaxBatch: expected key=value, e.g. --set engine.prefillMaxBatch=256 (kb lab --help lists the keys)');
    for (const arg of ['engine.prefilMaxBatch=4', 'nosuch=1', 'prefillMaxBatch']) expect(error(arg)).not.toContain('\n');
  });

  it('refuses out-of-range and mistyped values, naming the argument and the range', () => {
    expect(() => parseOverrides(['engine.prefillMaxBatch=0'])).toThrow(/--set engine.prefillMaxBatch=0: engine.prefillMaxBatch must be integer 1\.\.4096/);
    expect(() => parseOverrides(['engine.prefillMaxBatch=2.5'])).toThrow(SettingError);
    expect(() => parseOverrides(['engine.prefillMaxBatch=lots'])).toThrow(SettingError);
    expect(() => parseOverrides(['engine.policy=greedy'])).toThrow(/continuous \| static/);
    expect(() => parseOverrides(['workload.promptTokens=12..4'])).toThrow(/empty/);
    expect(() => parseOverrides(['workload.rate=0'])).toThrow(SettingError);
    expect(() => parseOverrides(['engine.prefixCaching=maybe'])).toThrow(/true \| false/);
    expect(() => parseOverrides(['model=gpt5'])).toThrow(/gpt2-tiny/);
    expect(() => parseOverrides(['prefillMaxBatch'])).toThrow(/expected key=value/);
  });

  it('accepts every integer in range and refuses every one outside', () => {
    const spec = settingSpec('engine.maxNumSeqs');
    if (spec?.kind !== 'int') throw new Error('maxNumSeqs is an int setting');
    fc.assert(
      fc.property(fc.integer({ min: -10_000, max: 10_000 }), (n) => {
        const ok = n >= spec.min && n <= spec.max;
        const run = () => parseOverrides([`engine.maxNumSeqs=${n}`]);
        if (ok) expect(run()).toEqual([{ key: 'engine.maxNumSeqs', value: n }]);
        else expect(run).toThrow(SettingError);
      }),
    );
  });
});

describe('applying overrides', () => {
  it('changes only the named keys, later ones winning, without touching the input', () => {
    const before = structuredClone(defaultSettings);
    const next = applyOverrides(defaultSettings, parseOverrides(['engine.prefillMaxBatch=8', 'workload.requests=10', 'engine.prefillMaxBatch=9']));
    expect(defaultSettings).toEqual(before);
    expect(next.engine.prefillMaxBatch).toBe(9);
    expect(getSetting(next, 'workload.requests')).toBe(10);
    expect(diffSettings(defaultSettings, next)).toEqual([
      { key: 'engine.prefillMaxBatch', value: 9 },
      { key: 'workload.requests', value: 10 },
    ]);
  });

  it('finds combinations that could never run', () => {
    const tooLong = applyOverrides(defaultSettings, parseOverrides(['engine.chunkSize=0', 'engine.maxBatchedTokens=64', 'workload.promptTokens=100']));
    expect(crossCheck(tooLong).join('\n')).toMatch(/never be scheduled/);
    const prefix = applyOverrides(defaultSettings, parseOverrides(['workload.promptTokens=8', 'workload.sharedPrefix=8']));
    expect(crossCheck(prefix).join('\n')).toMatch(/sharedPrefix/);
    const overContext = applyOverrides(defaultSettings, parseOverrides(['workload.promptTokens=1000', 'workload.outputTokens=100']));
    expect(crossCheck(overContext).join('\n')).toMatch(/1100 tokens\) exceeds gpt2-tiny's context of 1024 tokens/);
    // gpt2-tiny on the cpu: 2 x 4 layers x 128 x 4 bytes = 4 KiB per token, 64 KiB per block of 16.
    const tinyPool = applyOverrides(defaultSettings, parseOverrides(['engine.kvBudgetMB=0.1', 'workload.promptTokens=40', 'workload.outputTokens=10']));
    expect(crossCheck(tinyPool).join('\n')).toMatch(/holds 1 blocks of 16 tokens; the longest request needs 4/);
    expect(crossCheck(defaultSettings)).toEqual([]);
  });
});
