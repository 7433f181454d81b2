import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { percentile, percentiles } from '../../src/engine/metrics/percentile.ts';
import { summarize } from '../../src/engine/metrics/summary.ts';
import { type RequestTimeline, requestMetrics, timelineInOrder } from '../../src/engine/metrics/timeline.ts';

/** numpy.percentile's default ("linear", R-7) in its textbook 1-based form: h = (n - 1) p + 1. */
function numpyReference(values: number[], q: number): number {
  const x = [...values].sort((a, b) => a - b);
  const h = (x.length - 1) * (q / 100) + 1;
  const lower = Math.floor(h);
  const upper = Math.min(lower + 1, x.length);
  return x[lower - 1] + (h - lower) * (x[upper - 1] - x[lower - 1]);
}

const timeline = (t: Partial<RequestTimeline> & { tokenTimes: number[] }): RequestTimeline => ({
  promptTokens: 4,
  submitStart: 0,
  submitEnd: 0,
  admit: 0,
  finish: t.tokenTimes[t.tokenTimes.length - 1],
  error: null,
  ...t,
});

describe('percentiles', () => {
  it('match values numpy prints', () => {
    expect(percentile([1, 2, 3, 4], 95)).toBeCloseTo(3.85, 12);
    expect(percentile([15, 20, 35, 40, 50], 40)).toBeCloseTo(29, 12);
    expect(percentile([10, 7, 4, 3, 2, 1], 50)).toBeCloseTo(3.5, 12);
    expect(percentile([5], 99)).toBe(5);
    expect(percentile([], 50)).toBeNaN();
  });

  it('match a numpy-style reference on random data', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 200 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (values, q) => {
          const got = percentile(values, q);
          const want = numpyReference(values, q);
          expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
          expect(got).toBeGreaterThanOrEqual(Math.min(...values));
          expect(got).toBeLessThanOrEqual(Math.max(...values));
        },
      ),
    );
  });

  it('summarise p50/p95/p99 and the mean', () => {
    const p = percentiles([4, 1, 3, 2]);
    expect(p).toMatchObject({ p50: 2.5, mean: 2.5, count: 4 });
    expect(p.p99).toBeCloseTo(3.97, 12);
  });
});

describe('request metrics', () => {
  it('split TTFT into queue wait and prefill->first token, and compute TPOT', () => {
    const m = requestMetrics(timeline({ submitStart: 10, submitEnd: 10.5, admit: 40, tokenTimes: [60, 70, 85, 100] }))!;
    expect(m.addRequestMs).toBe(0.5);
    expect(m.queueWaitMs).toBe(29.5);
    expect(m.prefillToFirstTokenMs).toBe(20);
    expect(m.ttftMs).toBe(50);
    expect(m.queueWaitMs + m.prefillToFirstTokenMs + m.addRequestMs).toBe(m.ttftMs);
    expect(m.tpotMs).toBe(40 / 3);
    expect(m.latencyMs).toBe(90);
  });

  it('have no TPOT for a single token and no metrics for a failed request', () => {
    expect(requestMetrics(timeline({ tokenTimes: [5] }))!.tpotMs).toBeNull();
    expect(requestMetrics(timeline({ tokenTimes: [], error: 'too long', finish: null }))).toBeNull();
  });

  it('check the order of the stamps', () => {
    expect(timelineInOrder(timeline({ submitEnd: 1, admit: 2, tokenTimes: [3, 3, 4] }))).toBe(true);
    expect(timelineInOrder(timeline({ submitEnd: 1, admit: 0.5, tokenTimes: [3] }))).toBe(false);
    expect(timelineInOrder(timeline({ admit: null, tokenTimes: [3] }))).toBe(false);
  });
});

describe('summarize', () => {
  const timelines = [
    timeline({ submitStart: 0, submitEnd: 1, admit: 1, tokenTimes: [11, 21, 31] }),
    timeline({ submitStart: 1, submitEnd: 2, admit: 12, tokenTimes: [22, 32] }),
    timeline({ submitStart: 2, submitEnd: 3, tokenTimes: [], admit: null, finish: null, error: 'rejected' }),
  ];

  it('pools ITL over requests and measures throughput from the first submit to the last finish', () => {
    const s = summarize(timelines);
    expect(s).toMatchObject({ requests: 3, completed: 2, failed: 1, promptTokens: 8, completionTokens: 5, submitWallMs: 3, durationMs: 32 });
    expect(s.itlMs.count).toBe(3);
    expect(s.itlMs.p50).toBe(10);
    expect(s.ttftMs.p50).toBe(16); // 11 and 21
    expect(s.outputTokensPerS).toBeCloseTo((5 * 1000) / 32, 9);
    expect(s.totalTokensPerS).toBeCloseTo((13 * 1000) / 32, 9);
    expect(s.requestsPerS).toBeCloseTo((2 * 1000) / 32, 9);
    expect(s.goodputRequestsPerS).toBeNull();
  });

  it('counts requests stopped by an interrupt apart from failed ones', () => {
    const stopped = timeline({ submitStart: 3, submitEnd: 4, admit: 5, tokenTimes: [], finish: null, error: 'aborted' });
    expect(summarize([...timelines, stopped])).toMatchObject({ requests: 4, completed: 2, failed: 1, aborted: 1 });
  });

  it('counts goodput as the requests meeting every SLO per second', () => {
    const s = summarize(timelines, { ttftMs: 15, tpotMs: 10 });
    expect(s.goodputRequestsPerS).toBeCloseTo(1000 / 32, 9);
  });
});
