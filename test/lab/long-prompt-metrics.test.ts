// A sim run of a million requests once ended in "Maximum call stack size exceeded": the
// longest prompt was found by spreading every request into Math.max.
import { describe, expect, it } from 'vitest';
import { longPromptMetrics } from '../../src/lab/engine-bridge.ts';

function timeline(promptTokens: number, ttftMs: number) {
  return { promptTokens, submitStart: 0, submitEnd: 0, admit: 0, tokenTimes: [ttftMs, ttftMs + 1], finish: ttftMs + 1, error: null };
}

describe('long and short prompts apart', () => {
  it('splits at half the longest prompt', () => {
    const metrics = longPromptMetrics([timeline(100, 50), timeline(100, 70), timeline(10, 5), timeline(40, 9)]);
    expect(metrics).toEqual({ 'ttft_long.p50': expect.any(Number), 'ttft_long.max': 70, 'ttft_short.p95': expect.any(Number) });
  });

  it('handles a million requests', () => {
    const many = Array.from({ length: 1_000_000 }, (_, i) => timeline(i % 10 === 0 ? 512 : 16, i % 10 === 0 ? 30 : 3));
    expect(longPromptMetrics(many)['ttft_long.max']).toBe(30);
  });
});
