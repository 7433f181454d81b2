// /metrics as a Prometheus scraper reads it (vLLM's names, labels and bucket edges), and a
// client that hangs up mid-stream frees its request and its KV blocks.
import { connect } from 'node:net';
import parsePrometheusTextFormat, { type PromFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, postJson, startServe, type ServeFixture } from './serve-fixture.ts';

let serve: ServeFixture;
const accessLog: string[] = [];

beforeAll(async () => {
  serve = await startServe({}, 1024, (line) => accessLog.push(line));
});
afterAll(async () => {
  await serve?.close();
});

const scrape = () => fetch(`${serve.url}/metrics`).then((r) => r.text());
const LABELS = { model_name: 'gpt2-tiny', engine: '0' };

function family(families: PromFamily[], name: string): PromFamily {
  const found = families.find((f) => f.name === name);
  if (!found) throw new Error(`${name} missing from /metrics`);
  return found;
}

describe('/metrics', () => {
  it('parses as Prometheus text with vLLM\'s names, types and labels', async () => {
    await postJson(`${serve.url}/v1/completions`, { prompt: 'The KV cache', max_tokens: 5, ignore_eos: true });
    const res = await fetch(`${serve.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const families = parsePrometheusTextFormat(text);
    const expected: Record<string, PromFamily['type']> = {
      'vllm:num_requests_running': 'GAUGE',
      'vllm:num_requests_waiting': 'GAUGE',
      'vllm:kv_cache_usage_perc': 'GAUGE',
      'vllm:prefix_cache_queries_total': 'COUNTER',
      'vllm:prefix_cache_hits_total': 'COUNTER',
      'vllm:prompt_tokens_total': 'COUNTER',
      'vllm:generation_tokens_total': 'COUNTER',
      'vllm:iteration_tokens_total': 'HISTOGRAM',
      'vllm:time_to_first_token_seconds': 'HISTOGRAM',
      'vllm:inter_token_latency_seconds': 'HISTOGRAM',
      'vllm:e2e_request_latency_seconds': 'HISTOGRAM',
      'vllm:request_queue_time_seconds': 'HISTOGRAM',
      'vllm:request_prefill_time_seconds': 'HISTOGRAM',
      'vllm:request_decode_time_seconds': 'HISTOGRAM',
      'kb:engine_steps_total': 'COUNTER',
      'kb:engine_forward_seconds_total': 'COUNTER',
      'kb:engine_scheduling_seconds_total': 'COUNTER',
    };
    for (const [name, type] of Object.entries(expected)) {
      const f = family(families, name);
      expect(f.type, name).toBe(type);
      // (This parser folds a labelled histogram into its buckets; the labels are checked on the text.)
      if (type !== 'HISTOGRAM') expect(f.metrics[0].labels, name).toEqual(LABELS);
      else expect(text).toContain(`${name}_count{model_name="gpt2-tiny",engine="0"}`);
    }
    const ttft = family(families, 'vllm:time_to_first_token_seconds').metrics[0];
    expect(Number(ttft.buckets!['+Inf'])).toBe(1);
    // TTFT and the phase histograms: vLLM's edges (so its dashboards' quantiles mean the same
    // here) and finer ones, no bucket between 1 ms and 10 s more than about 12% wide, so a
    // lab's check can be judged on a percentile's bucket (TTFT's 1-2.5 s bucket read a p99
    // of 1864 ms as 2470).
    const edgesOf = (name: string) => Object.keys((family(families, name).metrics[0] as { buckets?: Record<string, string> }).buckets!).filter((le) => le !== '+Inf').map(Number).sort((a, b) => a - b);
    const vllmEdges = {
      'vllm:time_to_first_token_seconds': [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560],
      'vllm:request_queue_time_seconds': [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 7680],
    };
    for (const [name, vllm] of Object.entries(vllmEdges)) {
      const edges = edgesOf(name);
      for (const edge of vllm) expect(edges, name).toContain(edge);
      const fine = edges.filter((edge) => edge >= 0.001 && edge <= 10);
      for (let i = 1; i < fine.length; i++) expect(fine[i]! / fine[i - 1]!, `${name}: ${fine[i - 1]} -> ${fine[i]}`).toBeLessThan(1.13);
    }
    expect(metricValue(text, 'vllm:time_to_first_token_seconds_count')).toBe(1);
    expect(metricValue(text, 'vllm:inter_token_latency_seconds_count')).toBe(4);
    expect(Number(family(families, 'vllm:prompt_tokens_total').metrics[0].value)).toBe(4);
    expect(Number(family(families, 'vllm:generation_tokens_total').metrics[0].value)).toBe(5);
    const success = family(families, 'vllm:request_success_total').metrics;
    expect(success.find((m) => m.labels?.finished_reason === 'length')?.value).toBe('1');
    // One iteration observation per step that produced tokens; they add up to prompt + output.
    expect(metricValue(text, 'vllm:iteration_tokens_total_sum')).toBe(4 + 5);
    expect(metricValue(text, 'vllm:iteration_tokens_total_count')).toBe(5);
    // kb's own: the five steps (the warm-up's are not counted), and the time they took.
    expect(metricValue(text, 'kb:engine_steps_total')).toBe(5);
    const forward = metricValue(text, 'kb:engine_forward_seconds_total');
    expect(forward).toBeGreaterThan(0);
    expect(forward).toBeLessThan(metricValue(text, 'vllm:e2e_request_latency_seconds_sum'));
    expect(metricValue(text, 'kb:engine_scheduling_seconds_total')).toBeGreaterThan(0);
    // queue + prefill = TTFT up to the server's own handling before submit (same requests, same clock).
    const sum = (name: string) => metricValue(text, `${name}_sum`);
    const split = sum('vllm:request_queue_time_seconds') + sum('vllm:request_prefill_time_seconds');
    expect(split).toBeLessThanOrEqual(sum('vllm:time_to_first_token_seconds'));
    expect(split).toBeGreaterThan(0);
  });

  it('counts prefix cache hits when prompts share full blocks', async () => {
    const before = await scrape();
    const prompt = Array.from({ length: 48 }, (_, i) => 100 + i);
    await postJson(`${serve.url}/v1/completions`, { prompt, max_tokens: 1 });
    await postJson(`${serve.url}/v1/completions`, { prompt, max_tokens: 1 });
    const after = await scrape();
    const delta = (name: string) => metricValue(after, name) - metricValue(before, name);
    expect(delta('vllm:prefix_cache_queries_total')).toBe(96);
    // The second request finds the first two 16-token blocks (the last block is recomputed for logits).
    expect(delta('vllm:prefix_cache_hits_total')).toBeGreaterThanOrEqual(32);
  });
});

describe('a client that disconnects mid-stream', () => {
  it('aborts its request and frees its KV blocks', async () => {
    const idle = await scrape();
    expect(metricValue(idle, 'vllm:num_requests_running')).toBe(0);
    const idleUsage = metricValue(idle, 'vllm:kv_cache_usage_perc');
    const abortsBefore = Number(/vllm:request_success_total\{[^}]*finished_reason="abort"\} (\d+)/.exec(idle)![1]);

    const controller = new AbortController();
    const res = await fetch(`${serve.url}/v1/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'Stream until I leave', max_tokens: 1000, ignore_eos: true, stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('data: ')) seen += new TextDecoder().decode((await reader.read()).value);
    const busy = await scrape();
    expect(metricValue(busy, 'vllm:num_requests_running')).toBe(1);
    expect(metricValue(busy, 'vllm:kv_cache_usage_perc')).toBeGreaterThan(idleUsage);

    controller.abort();
    let after = busy;
    for (let i = 0; i < 100; i++) {
      after = await scrape();
      if (metricValue(after, 'vllm:num_requests_running') === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(metricValue(after, 'vllm:num_requests_running')).toBe(0);
    expect(metricValue(after, 'vllm:kv_cache_usage_perc')).toBe(idleUsage);
    expect(Number(/vllm:request_success_total\{[^}]*finished_reason="abort"\} (\d+)/.exec(after)![1])).toBe(abortsBefore + 1);
    // It ended long before its 1000 tokens.
    expect(metricValue(after, 'vllm:generation_tokens_total')).toBeLessThan(metricValue(idle, 'vllm:generation_tokens_total') + 1000);
    expect(serve.server.active.size).toBe(0);
  });

  it('is logged with its address, as every other request is', async () => {
    // A client killed mid-stream (curl under timeout): its line read {"method":"POST",...,
    // "status":499} with no "remote", the address read after its socket had closed.
    const { port } = new URL(serve.url);
    const socket = connect(Number(port), '127.0.0.1');
    const body = JSON.stringify({ prompt: 'Stream until I leave', max_tokens: 1000, ignore_eos: true, stream: true });
    socket.write(`POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.resetAndDestroy();
    let left: Array<{ status: number; remote?: string }> = [];
    for (let i = 0; i < 100 && left.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = accessLog.map((line) => JSON.parse(line) as { status: number; remote?: string }).filter((entry) => entry.status === 499);
    }
    expect(left.length).toBeGreaterThan(0);
    for (const entry of left) expect(entry.remote).toBe('127.0.0.1');
  });
});
