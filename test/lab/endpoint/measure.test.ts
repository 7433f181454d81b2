import { describe, expect, it } from 'vitest';
import { endpointBounds, endpointMetrics, endpointServerFigures, serverSide, summarizeRequests, type MeasuredRequest } from '../../../src/lab/endpoint/measure.ts';
import type { Histogram, Scrape } from '../../../src/lab/endpoint/server-histograms.ts';

const ok = (sentAt: number, chunks: number[], outputTokens: number, promptTokens: number | null = 8): MeasuredRequest => ({
  promptTokens,
  outcome: { sentAt, endedAt: chunks[chunks.length - 1], chunkTimes: chunks, outputTokens, usagePromptTokens: 8, error: null },
});
const failed = (sentAt: number, reason: string): MeasuredRequest => ({
  promptTokens: 8,
  outcome: { sentAt, endedAt: sentAt + 1, chunkTimes: [], outputTokens: 0, usagePromptTokens: null, error: reason },
});

describe("endpoint metrics, vllm bench serve's definitions", () => {
  const requests = [
    ok(0, [100, 110, 130], 3), // TTFT 100, TPOT (130-100)/2 = 15, ITL 10 and 20
    ok(0, [200, 260], 5), // usage says 5 tokens in 2 chunks: TPOT (260-200)/4 = 15, one ITL of 60
    ok(10, [50], 1), // one token: no TPOT
    failed(0, 'HTTP 500: boom'),
    failed(5, 'HTTP 500: boom'),
    failed(5, 'timed out'),
  ];
  const summary = summarizeRequests(requests, { ttftMs: 150, tpotMs: 0 });

  it('TTFT from sending, TPOT per request from usage tokens, ITL pooled per chunk', () => {
    expect(summary.ttftMs.count).toBe(3);
    expect(summary.ttftMs.mean).toBeCloseTo((100 + 200 + 40) / 3);
    expect(summary.tpotMs).toMatchObject({ count: 2, mean: 15 });
    expect(summary.itlMs).toMatchObject({ count: 3, mean: 30 });
    expect(summary.latencyMs.p50).toBe(130);
  });

  it('counts output tokens from usage and throughput over first send to last end', () => {
    expect(summary).toMatchObject({ requests: 6, completed: 3, failed: 3, outputTokens: 9, promptTokens: 24, durationMs: 260 });
    expect(summary.outputTokensPerS).toBeCloseTo((9 * 1000) / 260);
    expect(summary.requestsPerS).toBeCloseTo((3 * 1000) / 260);
    // TTFT <= 150 ms: the first and third.
    expect(summary.goodputRequestsPerS).toBeCloseTo((2 * 1000) / 260);
  });

  it('lists failures by reason, most frequent first', () => {
    expect(summary.failures).toEqual([
      { reason: 'HTTP 500: boom', count: 2 },
      { reason: 'timed out', count: 1 },
    ]);
  });

  it('takes prompt tokens from usage when they were not known before sending', () => {
    expect(summarizeRequests([ok(0, [1, 2], 2, null)], { ttftMs: 0, tpotMs: 0 })).toMatchObject({ promptTokens: 8, goodputRequestsPerS: null });
  });

  it('puts resolved server percentiles and exact means under the lab names; bounds stay out', () => {
    const h = (cumulative: number[], sum: number): Histogram => ({ edges: [0.3, 0.5, 0.8, Infinity], cumulative, count: cumulative[3], sum });
    const before: Scrape = new Map([
      ['vllm:request_queue_time_seconds', h([0, 0, 0, 0], 0)],
      ['vllm:request_prefill_time_seconds', h([0, 0, 0, 0], 0)],
    ]);
    const after: Scrape = new Map([
      ['vllm:request_queue_time_seconds', h([0, 5, 10, 10], 5)],
      ['vllm:request_prefill_time_seconds', h([10, 10, 10, 10], 0.05)],
    ]);
    const server = serverSide(before, after);
    expect(server.available).toBe(true);
    const metrics = endpointMetrics(summary, server);
    expect(metrics['queue_wait.p50']).toBeCloseTo(500); // rank 5 ends the (0.3, 0.5] bucket
    expect(metrics['queue_wait.mean']).toBeCloseTo(500);
    expect(metrics['prefill_first.mean']).toBeCloseTo(5);
    expect(metrics['prefill_first.p99']).toBeUndefined(); // only "under 300 ms"
    expect(metrics['ttft.mean']).toBeCloseTo(summary.ttftMs.mean);
    expect(metrics.requests_failed).toBe(3);
    // Each percentile comes with its bucket, so a check is judged on all of it.
    expect(endpointBounds(server)['queue_wait.p50']).toEqual({ lower: 300, upper: 500 });
    expect(endpointBounds(server)['prefill_first.p99']).toBeUndefined();
  });

  it("gives the server's own figures, its TTFT included, for checks that divide one server figure by another", () => {
    const h = (edges: number[], cumulative: number[], sum: number): Histogram => ({ edges, cumulative, count: cumulative.at(-1)!, sum });
    const empty = (edges: number[]) => h(edges, edges.map(() => 0), 0);
    const [latency, ttft] = [[0.3, 0.5, 0.8, Infinity], [0.1, 0.25, 0.5, 0.75, Infinity]];
    const before: Scrape = new Map([
      ['vllm:request_queue_time_seconds', empty(latency)],
      ['vllm:time_to_first_token_seconds', empty(ttft)],
    ]);
    const after: Scrape = new Map([
      ['vllm:request_queue_time_seconds', h(latency, [0, 5, 10, 10], 5)],
      ['vllm:time_to_first_token_seconds', h(ttft, [0, 0, 5, 10, 10], 6)],
    ]);
    const figures = endpointServerFigures(serverSide(before, after));
    expect(figures.metrics['queue_wait.p50']).toBeCloseTo(500);
    expect(figures.metrics['ttft.p50']).toBeCloseTo(500);
    expect(figures.metrics['ttft.mean']).toBeCloseTo(600);
    expect(figures.bounds?.['ttft.p99']).toEqual({ lower: 500, upper: 750 });
    // The run's own TTFT stays the client's.
    expect(endpointMetrics(summary, serverSide(before, after))['ttft.mean']).toBeCloseTo(summary.ttftMs.mean);
    expect(endpointServerFigures(serverSide(null, null))).toEqual({ metrics: {}, bounds: {} });
  });

  it('says why there is no server side', () => {
    expect(serverSide(null, null)).toEqual({ available: false, reason: expect.stringMatching(/no Prometheus \/metrics/) });
    expect(serverSide(new Map(), new Map())).toEqual({ available: false, reason: expect.stringMatching(/vllm:request_queue_time_seconds/) });
    // Read before the run, gone after it (the server stopped midway): not "offers no /metrics".
    const before: Scrape = new Map([['vllm:request_queue_time_seconds', { edges: [0.3, Infinity], cumulative: [0, 0], count: 0, sum: 0 }]]);
    expect(serverSide(before, null)).toEqual({ available: false, reason: "the server's /metrics, read before the run, could not be read after it (did the server stop?)" });
  });
});
