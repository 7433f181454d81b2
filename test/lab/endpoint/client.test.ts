// kb's streaming client against the fake OpenAI-compatible server (vLLM's formats), and
// the one line it gives for each way a server can fail.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEndpoint } from '../../../src/lab/endpoint/target.ts';
import { streamCompletion } from '../../../src/lab/endpoint/stream-client.ts';
import { probeServer } from '../../../src/lab/endpoint/server-info.ts';
import { isGpt2Model, planPrompts } from '../../../src/lab/endpoint/prompts.ts';
import { startFakeServer, type FakeServer } from '../../helpers/fake-openai-server.ts';

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer({ model: 'gpt2', decodeMs: 2, prefillMs: 5, failEvery: 0 });
});
afterAll(() => server.close());

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('endpoint client', () => {
  it('streams a completion: first chunk after sending, one stamp per chunk, tokens from usage', async () => {
    const target = parseEndpoint(server.url);
    const outcome = await streamCompletion(target, { model: 'gpt2', prompt: [1, 2, 3], maxTokens: 5, ignoreEos: true });
    expect(outcome.error).toBeNull();
    expect(outcome).toMatchObject({ outputTokens: 5, usagePromptTokens: 3 });
    expect(outcome.chunkTimes).toHaveLength(5);
    expect(outcome.chunkTimes[0] - outcome.sentAt).toBeGreaterThanOrEqual(4); // prefill takes 5 ms
    expect(outcome.endedAt).toBeGreaterThanOrEqual(outcome.chunkTimes[4]);
    expect(server.bodies.at(-1)).toMatchObject({ model: 'gpt2', prompt: [1, 2, 3], max_tokens: 5, stream: true, stream_options: { include_usage: true }, ignore_eos: true });
  });

  it('times the first token by the first chunk with a choice, its text empty or not (as vllm bench serve)', async () => {
    // vLLM sends empty text for a token that completes no character; timing the first text
    // chunk put TTFT tokens after the first one.
    const slow = await startFakeServer({ model: 'gpt2', decodeMs: 30, prefillMs: 1, emptyFirst: 2 });
    try {
      const outcome = await streamCompletion(parseEndpoint(slow.url), { model: 'gpt2', prompt: [1, 2, 3], maxTokens: 4, ignoreEos: true });
      expect(outcome.error).toBeNull();
      expect(outcome.chunkTimes).toHaveLength(4);
      expect(outcome.chunkTimes[0] - outcome.sentAt).toBeLessThan(30);
    } finally {
      await slow.close();
    }
  });

  it('fails a request the server aborted or cut short: it never produced the tokens asked for', async () => {
    // vLLM and kb serve end the requests open at shutdown with finish_reason "abort" and [DONE]:
    // counted as successful, a run against a server stopped midway was stored "ok" with a
    // fraction of the output tokens and "output lengths exact".
    const aborting = await startFakeServer({ abortAfter: 3 });
    const dropping = await startFakeServer({ dropAfter: 3 });
    try {
      const aborted = await streamCompletion(parseEndpoint(aborting.url), { model: 'gpt2', prompt: [1, 2], maxTokens: 10, ignoreEos: true });
      expect(aborted.error).toBe('the server aborted the request (finish_reason "abort") before it finished');
      // Its 3 tokens and the abort's own chunk: every chunk with a choice, as vllm bench serve counts them.
      expect(aborted.chunkTimes).toHaveLength(4);
      const dropped = await streamCompletion(parseEndpoint(dropping.url), { model: 'gpt2', prompt: [1, 2], maxTokens: 10, ignoreEos: true });
      expect(dropped.error).toBe('the stream ended before the request finished (no finish_reason, no [DONE])');
      // A stream that ends as it should is still a success, with or without a usage chunk.
      const whole = await streamCompletion(parseEndpoint(aborting.url), { model: 'gpt2', prompt: [1, 2], maxTokens: 3, ignoreEos: true });
      expect(whole.error).toBeNull();
    } finally {
      await aborting.close();
      await dropping.close();
    }
  });

  it('learns the model, the version and that ignore_eos is accepted', async () => {
    expect(await probeServer(parseEndpoint(server.url), undefined)).toEqual({ model: 'gpt2', version: '0.0.0-fake', ignoreEos: true });
    await expect(probeServer(parseEndpoint(server.url), 'llama')).rejects.toThrow(/--model llama: the server does not serve it; it serves gpt2/);
    const strict = await startFakeServer({ rejectIgnoreEos: true, version: false });
    try {
      expect(await probeServer(parseEndpoint(strict.url), undefined)).toEqual({ model: 'gpt2', version: null, ignoreEos: false });
    } finally {
      await strict.close();
    }
  });

  it('gives one line for a refused connection, an HTTP error, a timeout and a TLS mismatch', async () => {
    const port = await freePort();
    const refused = await streamCompletion(parseEndpoint(`http://127.0.0.1:${port}/v1`), { model: 'gpt2', prompt: 'hi', maxTokens: 2, ignoreEos: false });
    expect(refused.error).toMatch(/^connection refused/);
    await expect(probeServer(parseEndpoint(`http://127.0.0.1:${port}/v1`), undefined)).rejects.toThrow(/^http:\/\/127\.0\.0\.1:\d+\/v1: connection refused/);

    const wrongModel = await streamCompletion(parseEndpoint(server.url), { model: 'nope', prompt: 'hi', maxTokens: 2, ignoreEos: false });
    expect(wrongModel.error).toBe('HTTP 404: The model `nope` does not exist.');

    const slow = await startFakeServer({ prefillMs: 2000 });
    try {
      const timedOut = await streamCompletion(parseEndpoint(slow.url, { timeoutMs: 100 }), { model: 'gpt2', prompt: 'hi', maxTokens: 2, ignoreEos: false });
      expect(timedOut.error).toBe('timed out waiting for the server: nothing for 0.1 s (--request-timeout)');
    } finally {
      await slow.close();
    }

    const plain = await startFakeServer({ ignoreStream: true });
    try {
      const notStreamed = await streamCompletion(parseEndpoint(plain.url), { model: 'gpt2', prompt: 'hi', maxTokens: 2, ignoreEos: false });
      expect(notStreamed.error).toBe('the server answered application/json, not a stream (text/event-stream): does it stream completions?');
    } finally {
      await plain.close();
    }

    const tls = await streamCompletion(parseEndpoint(server.url.replace('http:', 'https:')), { model: 'gpt2', prompt: 'hi', maxTokens: 2, ignoreEos: false });
    expect(tls.error).toMatch(/^TLS error/);
    for (const e of [refused.error, wrongModel.error, tls.error]) expect(e).not.toMatch(/\n|    at /);
  });

  it('plans exact prompt lengths: GPT-2 ids locally, else slices of what /tokenize returned, else text and usage', async () => {
    const workload = { numRequests: 6, promptLength: { values: [3, 17, 40] }, outputLength: 4, arrival: { kind: 'burst' as const }, seed: 1 };
    const gpt2 = await planPrompts(parseEndpoint(server.url), 'openai-community/gpt2', workload);
    expect(gpt2.source).toBe('gpt2-bpe');
    expect(gpt2.requests.map((r) => (r.prompt as number[]).length)).toEqual([3, 17, 40, 3, 17, 40]);

    const other = await startFakeServer({ model: 'Qwen/Qwen3-0.6B' });
    const noTokenize = await startFakeServer({ model: 'Qwen/Qwen3-0.6B', tokenize: false });
    try {
      const sliced = await planPrompts(parseEndpoint(other.url), 'Qwen/Qwen3-0.6B', workload);
      expect(sliced.source).toBe('server-tokenize');
      expect(sliced.requests.map((r) => r.promptTokens)).toEqual([3, 17, 40, 3, 17, 40]);
      expect(new Set(sliced.requests.map((r) => JSON.stringify(r.prompt))).size).toBe(6);
      const text = await planPrompts(parseEndpoint(noTokenize.url), 'Qwen/Qwen3-0.6B', workload);
      expect(text.source).toBe('usage');
      expect(text.requests.every((r) => typeof r.prompt === 'string' && r.promptTokens === null)).toBe(true);
    } finally {
      await other.close();
      await noTokenize.close();
    }
  });

  it('knows GPT-2 models by name', () => {
    for (const name of ['gpt2', 'gpt2-tiny', 'gpt2-medium', 'openai-community/gpt2', 'distilgpt2', 'my-org/gpt-2-finetune']) expect(isGpt2Model(name)).toBe(true);
    for (const name of ['Qwen/Qwen3-0.6B', 'meta-llama/Llama-3.1-8B', 'gpt2x', 'nanogpt22']) expect(isGpt2Model(name)).toBe(false);
  });

  it('takes a server root as its /v1, and any other path as given', () => {
    for (const url of ['http://127.0.0.1:8000', 'http://127.0.0.1:8000/', 'http://127.0.0.1:8000/v1', 'http://127.0.0.1:8000/v1/']) {
      expect(parseEndpoint(url)).toMatchObject({ base: 'http://127.0.0.1:8000/v1', root: 'http://127.0.0.1:8000', shown: 'http://127.0.0.1:8000/v1' });
    }
    expect(parseEndpoint('https://llm.example.com/openai/v1')).toMatchObject({ base: 'https://llm.example.com/openai/v1', root: 'https://llm.example.com/openai' });
  });

  it('keeps credentials out of the URL it shows and stores', () => {
    const target = parseEndpoint('https://me:secret@example.com:8443/v1/?token=abc');
    expect(target.shown).toBe('https://example.com:8443/v1 (query not shown)');
    expect(target.authorization).toBe(`Basic ${Buffer.from('me:secret').toString('base64')}`);
    expect(target.root).toBe('https://example.com:8443');
    expect(parseEndpoint('http://h/v1', { apiKeyEnv: 'KEY', env: { KEY: 'k1' } }).authorization).toBe('Bearer k1');
    expect(() => parseEndpoint('http://h/v1', { apiKeyEnv: 'KEY', env: {} })).toThrow(/--api-key-env KEY: that environment variable is not set/);
    expect(() => parseEndpoint('localhost:8000')).toThrow(/expected an http:\/\/ or https:\/\/ URL/);
    expect(() => parseEndpoint('not a url')).toThrow(/not a URL/);
  });
});
