// kb serve --api-server-count N: N HTTP server threads share the port and the one engine.
// Driven as a user runs it: many connections at once all get every token, /metrics counts every
// thread's requests once, --max-waiting holds across threads, SIGTERM ends every thread's
// streams, and a port already served is refused rather than shared.
import { afterEach, describe, expect, it } from 'vitest';
import { runKb } from '../helpers/kb-cli.ts';
import { startKbServe, stopKbServes } from '../helpers/kb-serve.ts';
import { Agent, request } from 'node:http';

afterEach(stopKbServes);

/** A completion streamed over a connection of its own (so the kernel may hand it to any thread). */
function stream(url: string, body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const payload = JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } });
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/completions`, { method: 'POST', agent: new Agent({ keepAlive: false }), headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const metric = (text: string, name: string, labels = '') => Number(new RegExp(`^${name}\\{[^}]*${labels}[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
const scrape = (url: string) => fetch(`${url}/metrics`).then((r) => r.text());

async function waitFor(url: string, test: (metrics: string) => boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (test(await scrape(url))) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never: ${await scrape(url)}`);
}

describe('kb serve --api-server-count', () => {
  it('serves many connections at once over its threads, and /metrics counts each request once', async () => {
    const serve = await startKbServe(['--api-server-count', '3']);
    expect(serve.stdout()).toMatch(/\non http:\/\/127\.0\.0\.1:\d+ with 3 API server threads \(Ctrl-C to stop\)\n/);
    const count = 24;
    const results = await Promise.all(Array.from({ length: count }, (_, i) => stream(serve.url, { prompt: [1, 2, 3, i], max_tokens: 5, ignore_eos: true })));
    for (const { status, text } of results) {
      expect(status).toBe(200);
      const usage = text.split('\n\n').find((e) => e.includes('"usage":{'));
      expect(JSON.parse(usage!.slice(6)).usage.completion_tokens).toBe(5);
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    }
    // A scrape right after the last stream: every thread's reports are in it.
    const metrics = await scrape(serve.url);
    expect(metric(metrics, 'vllm:request_success_total', 'finished_reason="length"')).toBe(count);
    expect(metric(metrics, 'vllm:generation_tokens_total')).toBe(count * 5);
    expect(metric(metrics, 'vllm:prompt_tokens_total')).toBe(count * 4);
    expect(metric(metrics, 'vllm:time_to_first_token_seconds_count')).toBe(count);
    expect(metric(metrics, 'vllm:inter_token_latency_seconds_count')).toBe(count * 4);
    // Each step's tokens once, though its requests were streamed by several threads.
    expect(metric(metrics, 'vllm:iteration_tokens_total_sum')).toBe(count * 5 + count * 4);
    expect(metric(metrics, 'vllm:iteration_tokens_total_count')).toBe(metric(metrics, 'kb:engine_steps_total'));
    expect(metric(metrics, 'vllm:num_requests_running')).toBe(0);
    expect(metric(metrics, 'vllm:kv_cache_usage_perc')).toBe(0);
    serve.child.kill('SIGTERM');
    expect((await serve.exited).code).toBe(0);
    // The access log: one line per request, from whichever thread served it.
    const log = serve.stdout().trim().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    expect(log.filter((l) => l.path === '/v1/completions' && l.status === 200)).toHaveLength(count);
  }, 60_000);

  it('counts each engine step once in vllm:iteration_tokens_total though /metrics is scraped while its threads stream', async () => {
    const serve = await startKbServe(['--quiet', '--api-server-count', '3']);
    const count = 60;
    let streaming = true;
    const streams = Promise.all(Array.from({ length: count }, (_, i) => stream(serve.url, { prompt: [1, 2, 3, i], max_tokens: 60, ignore_eos: true }))).finally(() => (streaming = false));
    // A scraper as Prometheus runs one, only faster: each scrape falls between some thread's
    // part of a step and another's.
    let scrapes = 0;
    while (streaming) {
      await scrape(serve.url);
      scrapes++;
    }
    for (const { status } of await streams) expect(status).toBe(200);
    expect(scrapes).toBeGreaterThan(5);
    const metrics = await scrape(serve.url);
    expect(metric(metrics, 'vllm:iteration_tokens_total_sum')).toBe(count * 60 + count * 4);
    expect(metric(metrics, 'vllm:iteration_tokens_total_count')).toBe(metric(metrics, 'kb:engine_steps_total'));
  }, 60_000);

  it('holds --max-waiting across its threads, and on SIGTERM ends every thread\'s streams and exits 0', async () => {
    const serve = await startKbServe(['--quiet', '--api-server-count', '2', '--max-waiting', '2', '--set', 'engine.maxNumSeqs=1']);
    const long = { prompt: [5, 6, 7], max_tokens: 1000, ignore_eos: true };
    const running = stream(serve.url, long);
    await waitFor(serve.url, (m) => metric(m, 'vllm:num_requests_running') === 1);
    const waiting = [stream(serve.url, long), stream(serve.url, long)];
    await waitFor(serve.url, (m) => metric(m, 'vllm:num_requests_waiting') === 2);
    // Two wait already, whichever thread took them: the next is refused on any thread.
    const refused = await Promise.all([stream(serve.url, long), stream(serve.url, long)]);
    for (const { status, text } of refused) {
      expect(status).toBe(429);
      expect(JSON.parse(text).error.message).toMatch(/waiting queue is full \(2 requests not yet started/);
    }
    serve.child.kill('SIGTERM');
    const ended = await Promise.all([running, ...waiting]);
    expect((await serve.exited).code).toBe(0);
    for (const { text } of ended) expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(serve.stderr()).toMatch(/SIGTERM, ending 3 open requests and stopping/);
  }, 60_000);

  it('refuses a port another kb serve already serves, though both would share it (SO_REUSEPORT)', async () => {
    const first = await startKbServe(['--quiet', '--api-server-count', '2']);
    const port = new URL(first.url).port;
    for (const args of [['--api-server-count', '2'], []]) {
      const second = runKb(['serve', '--port', port, ...args]);
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(`kb: port ${port} on 127.0.0.1 is in use; choose another with --port\n`);
    }
  }, 60_000);

  it('refuses a count that is not a whole number in range', () => {
    for (const value of ['0', '64', '1.5', 'many']) {
      const result = runKb(['serve', '--api-server-count', value]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`kb: --api-server-count must be an integer in [1, 63] (got ${value})\n`);
    }
  });
});
