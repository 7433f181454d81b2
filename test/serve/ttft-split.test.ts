// The server-side TTFT split a scraper takes from /metrics (vLLM's queue and prefill
// histograms) agrees with the in-process engine's on the same burst: most of TTFT is queue
// wait when only a few requests may start prefill per step (ttft-breakdown, scaled down).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBenchmark } from '../../src/engine/bench/runner.ts';
import { generateWorkload } from '../../src/engine/bench/workload.ts';
import type { EngineOptions } from '../../src/engine/index.ts';
import { metricValue, startServe, type ServeFixture } from './serve-fixture.ts';

const engine: EngineOptions = {
  model: 'gpt2-tiny',
  backend: 'cpu',
  threads: 1,
  prefixCaching: false,
  scheduler: { maxNumSeqs: 64, maxBatchedTokens: 1024, prefillMaxBatch: 4, chunkSize: 0 },
};
const workload = { numRequests: 48, promptLength: 8, outputLength: 4, arrival: { kind: 'burst' as const }, seed: 3 };

let serve: ServeFixture;
beforeAll(async () => {
  serve = await startServe(engine);
});
afterAll(async () => {
  await serve?.close();
});

async function stream(prompt: number[], maxTokens: number): Promise<void> {
  const res = await fetch(`${serve.url}/v1/completions`, {
    method: 'POST',
    body: JSON.stringify({ prompt, max_tokens: maxTokens, ignore_eos: true, temperature: 0, stream: true }),
  });
  await res.text();
}

describe('the queue/prefill split from /metrics', () => {
  it('matches the in-process engine on the same burst', async () => {
    const report = await runBenchmark({ engine, workload, warmupRuns: 1, repeatRuns: 1 });
    const local = report.metrics;
    const localShare = local.queueWaitMs.mean / (local.queueWaitMs.mean + local.prefillToFirstTokenMs.mean);

    const requests = generateWorkload(workload, 50257);
    await Promise.all(requests.map((r) => stream(r.promptIds, r.maxNewTokens))); // warm-up
    const before = await fetch(`${serve.url}/metrics`).then((r) => r.text());
    await Promise.all(requests.map((r) => stream(r.promptIds, r.maxNewTokens)));
    const after = await fetch(`${serve.url}/metrics`).then((r) => r.text());
    const delta = (name: string) => metricValue(after, name) - metricValue(before, name);

    expect(delta('vllm:request_queue_time_seconds_count')).toBe(48);
    expect(delta('vllm:request_prefill_time_seconds_count')).toBe(48);
    const queue = delta('vllm:request_queue_time_seconds_sum');
    const prefill = delta('vllm:request_prefill_time_seconds_sum');
    const serverShare = queue / (queue + prefill);
    // 48 requests, 4 admitted per step: a request waits ~6 steps on average for 1 of prefill.
    expect(localShare).toBeGreaterThan(0.6);
    expect(serverShare).toBeGreaterThan(0.6);
    expect(Math.abs(serverShare - localShare)).toBeLessThan(0.15);
    // And TTFT contains both parts (the rest is the server's own handling before submit).
    expect(delta('vllm:time_to_first_token_seconds_sum')).toBeGreaterThanOrEqual(queue + prefill);
  });
});
