// A lab's settings lines: a sweep's key is shown as swept, not with the lab file's base value,
// which no point ran with (load-sweep's line read "poisson 10/s" over points at 0.5-4x capacity).
import { describe, expect, it } from 'vitest';
import { defaultSettings, applyOverrides, parseOverrides } from '../../src/lab/lab-settings.ts';
import { settingsLine } from '../../src/lab/report-text.ts';

const settings = applyOverrides(defaultSettings, parseOverrides(['workload.arrival=poisson', 'workload.rate=10', 'workload.requests=24']));

describe('settingsLine', () => {
  it('gives each value, or says which one a sweep sets', () => {
    expect(settingsLine(settings).split('\n')[1]).toMatch(/^ {2}24 requests, prompt \S+ \/ output \S+ tokens, poisson 10\/s$/);
    expect(settingsLine(settings, 'workload.rate').split('\n')[1]).toMatch(/, poisson rate swept$/);
    expect(settingsLine(settings, 'workload.requests').split('\n')[1]).toMatch(/^ {2}requests swept, prompt /);
    expect(settingsLine(settings, 'engine.policy').split('\n')[2]).toMatch(/^ {2}policy swept, prefillMaxBatch /);
    expect(settingsLine(settings, 'engine.prefixCaching').split('\n')[2]).toMatch(/, prefix cache swept$/);
  });

  it('says one request and one token in the singular (ttft-vs-length read "1 requests, ... output 1 tokens")', () => {
    const one = applyOverrides(defaultSettings, parseOverrides(['workload.requests=1', 'workload.outputTokens=1', 'workload.promptTokens=1']));
    expect(settingsLine(one).split('\n')[1]).toMatch(/^ {2}1 request, prompt 1 \/ output 1 token, /);
    expect(settingsLine(one, 'workload.promptTokens').split('\n')[1]).toMatch(/^ {2}1 request, prompt swept \/ output 1 token, /);
    const longer = applyOverrides(defaultSettings, parseOverrides(['workload.requests=2', 'workload.outputTokens=1', 'workload.promptTokens=8']));
    expect(settingsLine(longer).split('\n')[1]).toMatch(/^ {2}2 requests, prompt 8 \/ output 1 tokens, /);
  });
});
