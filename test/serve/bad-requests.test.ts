// The malformed-request suite: every bad input is an HTTP 4xx with OpenAI's error shape
// naming the field, and the server goes on serving.
import fc from 'fast-check';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServe, type ServeFixture } from './serve-fixture.ts';

let serve: ServeFixture;
let small: ServeFixture;

beforeAll(async () => {
  serve = await startServe();
  // 4 blocks of 16 tokens: room for 64 tokens in all; and a waiting queue of 2.
  small = await startServe({ numBlocks: 4, blockSize: 16 }, 2);
});
afterAll(async () => {
  await serve?.close();
  await small?.close();
});

function expectError(res: { status: number; json: any }, status: number, param: string | null, message: RegExp) {
  expect(res.status).toBe(status);
  expect(Object.keys(res.json)).toEqual(['error']);
  expect(Object.keys(res.json.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(res.json.error.code).toBe(status);
  expect(res.json.error.param).toBe(param);
  expect(res.json.error.message).toMatch(message);
}

describe('kb serve refuses bad requests with OpenAI\'s error shape', () => {
  const completions = () => `${serve.url}/v1/completions`;

  it('malformed JSON', async () => {
    expectError(await postJson(completions(), '{"prompt": "x",'), 400, null, /JSON/);
    expectError(await postJson(completions(), '[1, 2]'), 400, null, /must be a JSON object/);
    // As curl -d sends it (form-encoded): the message blamed a JSON content type it did not have.
    const form = { headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    expectError(await postJson(completions(), '{bad', form), 400, null, /^the request body is not valid JSON$/);
    expectError(await postJson(completions(), '', form), 400, null, /^the request body is empty: send a JSON object$/);
  });

  it('an unknown model (404, as vLLM answers)', async () => {
    const res = await postJson(completions(), { model: 'llama-70b', prompt: 'x' });
    expectError(res, 404, 'model', /The model `llama-70b` does not exist/);
    expect(res.json.error.type).toBe('NotFoundError');
  });

  it('wrong types and out-of-range values, naming the field', async () => {
    expectError(await postJson(completions(), { prompt: 'x', max_tokens: '5' }), 400, 'max_tokens', /expected number/);
    expectError(await postJson(completions(), { prompt: 'x', max_tokens: 0 }), 400, 'max_tokens', />=1|too small/i);
    expectError(await postJson(completions(), { prompt: 'x', temperature: -1 }), 400, 'temperature', /./);
    expectError(await postJson(completions(), { prompt: 'x', top_p: 1.5 }), 400, 'top_p', /./);
    expectError(await postJson(completions(), { prompt: 'x', stream: 'yes' }), 400, 'stream', /expected boolean/);
    expectError(await postJson(completions(), { prompt: 42 }), 400, 'prompt', /./);
    expectError(await postJson(completions(), { prompt: 'x', n: 2 }), 400, 'n', /only n = 1/);
    expectError(await postJson(completions(), { prompt: 'x', stream_options: { include_usage: true } }), 400, 'stream_options', /stream: true/);
    expectError(await postJson(`${serve.url}/v1/chat/completions`, { messages: [{ role: 'wizard', content: 'hi' }] }), 400, 'messages.0.role', /./);
    expectError(await postJson(`${serve.url}/v1/chat/completions`, { messages: [] }), 400, 'messages', /at least one message/);
    // /tokenize takes a prompt or messages: a body with neither had the bare "Invalid input".
    expectError(await postJson(`${serve.url}/tokenize`, {}), 400, 'prompt', /expected string/);
    expectError(await postJson(`${serve.url}/tokenize`, { messages: [{ role: 'wizard', content: 'hi' }] }), 400, 'messages.0.role', /./);
  });

  it('a missing or mistyped prompt, stop or message content says what to send (zod said only "Invalid input")', async () => {
    expectError(await postJson(completions(), {}), 400, 'prompt', /^prompt: is required: text or an array of whole-number token ids$/);
    expectError(await postJson(completions(), { prompt: 42 }), 400, 'prompt', /^prompt: must be text or an array of whole-number token ids \(got a number\)$/);
    expectError(await postJson(completions(), { prompt: [1, 'a'] }), 400, 'prompt', /\(got an array of 2 numbers and strings\)$/);
    expectError(await postJson(completions(), { prompt: 'x', stop: [1] }), 400, 'stop', /^stop: must be a string or an array of at most 16 strings \(got an array of 1 number\)$/);
    expectError(await postJson(completions(), { prompt: 'x', stop: Array.from({ length: 17 }, () => 'a') }), 400, 'stop', /\(got an array of 17 strings\)$/);
    const chat = `${serve.url}/v1/chat/completions`;
    expectError(await postJson(chat, { messages: [{ role: 'user' }] }), 400, 'messages.0.content', /^messages\.0\.content: is required: text or an array of/);
    expectError(await postJson(chat, { messages: [{ role: 'user', content: 5 }] }), 400, 'messages.0.content', /\(got a number\)$/);
  });

  it('an empty prompt, as text or as token ids', async () => {
    expectError(await postJson(completions(), { prompt: '' }), 400, 'prompt', /the prompt is empty/);
    expectError(await postJson(completions(), { prompt: [] }), 400, 'prompt', /./);
    expectError(await postJson(completions(), { prompt: [1, 2, 50257] }), 400, 'prompt', /not an id in \[0, 50257\)/);
  });

  it('max_tokens past the context', async () => {
    const res = await postJson(completions(), { prompt: 'The KV cache', max_tokens: 1021 });
    expectError(res, 400, 'max_tokens', /maximum context length is 1024 tokens; the request has 4 prompt tokens and max_tokens 1021/);
    const long = Array.from({ length: 1025 }, () => 1);
    expectError(await postJson(completions(), { prompt: long, max_tokens: 1 }), 400, 'prompt', /maximum context length/);
  });

  it('a prompt the context cannot hold names the prompt, not a max_tokens the client never sent', async () => {
    // Chat without max_tokens gets what the context leaves: the error read "max_tokens 1" and blamed "prompt".
    const chat = await postJson(`${serve.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'word '.repeat(1100) }] });
    expectError(chat, 400, 'messages', /^this model's maximum context length is 1024 tokens and the messages \(with the chat template\) have 1107; shorten them to at most 1023 to leave room for the output$/);
    const ids = Array.from({ length: 1024 }, () => 1);
    expectError(await postJson(completions(), { prompt: ids, max_tokens: 4 }), 400, 'prompt', /^this model's maximum context length is 1024 tokens and the prompt has 1024; shorten it to at most 1023/);
    // Room for a few tokens but not for completions' default 16: the message says it was the default.
    const near = await postJson(completions(), { prompt: ids.slice(0, 1020) });
    expectError(near, 400, 'max_tokens', /the request has 1020 prompt tokens and max_tokens 16 \(the default; send a smaller one\) \(1036 in all\)$/);
  });

  it('a request the KV pool can never hold, naming the limit', async () => {
    const res = await postJson(`${small.url}/v1/completions`, { prompt: 'x', max_tokens: 100 });
    expectError(res, 400, 'max_tokens', /needs 7 KV blocks .* the KV pool holds 4/);
    // The same request streamed is refused the same way, before any event is sent.
    const streamed = await postJson(`${small.url}/v1/completions`, { prompt: 'x', max_tokens: 100, stream: true });
    expectError(streamed, 400, 'max_tokens', /KV pool holds 4/);
  });

  it('chat without max_tokens on a KV pool smaller than the context gets what the pool leaves, not a 400', async () => {
    // The default was "what the context leaves" (1024 - prompt): 64 blocks, more than the 4 here.
    const chat = `${small.url}/v1/chat/completions`;
    const res = await postJson(chat, { messages: [{ role: 'user', content: 'hi' }], ignore_eos: true });
    expect(res.status).toBe(200);
    // 4 blocks of 16: 64 slots, and the last token needs none.
    expect(res.json.usage.prompt_tokens + res.json.usage.completion_tokens).toBe(65);
    expect(res.json.choices[0].finish_reason).toBe('length');
    // A prompt the pool cannot hold is the prompt's fault, with no max_tokens to blame.
    const long = await postJson(chat, { messages: [{ role: 'user', content: 'word '.repeat(80) }] });
    expectError(long, 400, 'messages', /KV pool holds 4; shorten the messages, or start kb serve with a larger --set engine.kvBudgetMB$/);
  });

  it('an unknown path, and a known one under the wrong method', async () => {
    expectError(await postJson(`${serve.url}/v1/embeddings`, { input: 'x' }), 404, null, /no route POST \/v1\/embeddings/);
    const get = await fetch(`${serve.url}/v1/completions?x=1`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expectError({ status: get.status, json: await get.json() }, 405, null, /^GET \/v1\/completions: this path takes POST$/);
  });

  it('a full waiting queue answers 429, and the requests it took still complete', async () => {
    const body = { prompt: Array.from({ length: 40 }, (_, i) => i + 1), max_tokens: 8, ignore_eos: true };
    const results = await Promise.all(Array.from({ length: 12 }, () => postJson(`${small.url}/v1/completions`, body)));
    const refused = results.filter((r) => r.status === 429);
    const served = results.filter((r) => r.status === 200);
    expect(refused.length).toBeGreaterThan(0);
    expect(served.length + refused.length).toBe(12);
    expect(served.length).toBeGreaterThanOrEqual(2);
    for (const r of refused) expectError(r, 429, null, /waiting queue is full \(2 requests/);
    for (const r of served) expect(r.json.usage.completion_tokens).toBe(8);
  });

  it('an engine that has stopped answers 503, not a 400 blaming the request', async () => {
    const stopped = await startServe();
    await stopped.engine.close();
    try {
      expectError(await postJson(`${stopped.url}/v1/completions`, { prompt: 'x', max_tokens: 2 }), 503, null, /shutting down/);
    } finally {
      await stopped.server.close();
    }
  });

  it('answers any JSON body with a completion or a 4xx in the error shape, never a 500 (property)', async () => {
    const field = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('x', 1, 0, -1, 2.5, null, true, [1, 2], ['a'], [[1]], {}));
    const body = fc.record(
      { prompt: field, max_tokens: field, temperature: field, top_p: field, top_k: field, stop: field, stream: field, seed: field, n: field, model: field },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(body, fc.jsonValue({ maxDepth: 2 })), async (json) => {
        const res = await serve.server.app.inject({ method: 'POST', url: '/v1/completions', payload: JSON.stringify(json), headers: { 'content-type': 'application/json' } });
        if (res.statusCode === 200) return;
        expect([400, 404]).toContain(res.statusCode);
        const parsed = JSON.parse(res.body);
        expect(typeof parsed.error.message).toBe('string');
        expect(parsed.error.code).toBe(res.statusCode);
      }),
      { numRuns: 150 },
    );
  });

  it('decodes a gzip or deflate body, as an HTTP server does (it was "not valid JSON"); refuses another coding with 415 and a zip bomb with 413', async () => {
    const json = JSON.stringify({ prompt: 'compressed', max_tokens: 2 });
    const post = async (body: Uint8Array | string, encoding: string) => {
      const res = await fetch(completions(), { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': encoding }, body });
      return { status: res.status, json: (await res.json()) as any };
    };
    for (const [encoding, body] of [['gzip', gzipSync(json)], ['x-gzip', gzipSync(json)], ['deflate', deflateSync(json)], ['GZIP', gzipSync(json)], ['identity', json]] as const) {
      const res = await post(body, encoding);
      expect(res.status, encoding).toBe(200);
      expect(res.json.usage.completion_tokens).toBe(2);
    }
    const br = await post(brotliCompressSync(json), 'br');
    expectError(br, 415, null, /^Content-Encoding "br" is not supported: send the body uncompressed, or compressed with gzip or deflate$/);
    expect(br.json.error.type).toBe('UnsupportedMediaTypeError');
    expectError(await post('{"prompt": "x"}', 'gzip'), 400, null, /^the request body could not be decoded as gzip: /);
    // 40 KB on the wire, 64 MiB decoded: the body limit (1 MiB) holds for the decoded size.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 32));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expectError(await post(bomb, 'gzip'), 413, null, /^the request body is over the 1048576-byte limit once decoded from gzip$/);
    expectError(await post(deflateSync(Buffer.alloc(2 * 1024 * 1024, 32)), 'deflate'), 413, null, /once decoded from deflate$/);
  });

  it('still serves after all of that', async () => {
    const res = await postJson(completions(), { prompt: 'still here', max_tokens: 2 });
    expect(res.status).toBe(200);
    expect(res.json.usage.completion_tokens).toBeGreaterThan(0);
  });
});
