// The first call to a server that refuses it, or to the wrong URL, or a server that falls
// silent: each is one line that names the cause and what to do. "HTTP 401: Unauthorized"
// named no flag; a pasted …/v1/completions became "HTTP 404: no route GET
// /v1/completions/models"; a stalled stream said only "timed out waiting for the server".
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeServer } from '../../../src/lab/endpoint/server-info.ts';
import { streamCompletion } from '../../../src/lab/endpoint/stream-client.ts';
import { parseEndpoint } from '../../../src/lab/endpoint/target.ts';
import { startFakeServer, type FakeServer } from '../../helpers/fake-openai-server.ts';

let keyed: FakeServer;
beforeAll(async () => {
  keyed = await startFakeServer({ apiKey: 'sekret' });
});
afterAll(() => keyed.close());

describe('an endpoint that refuses or is given wrong', () => {
  it('says to pass --api-key-env when the server wants a key, and names the variable whose key it refused', async () => {
    await expect(probeServer(parseEndpoint(keyed.url), undefined)).rejects.toThrow(/HTTP 401: Unauthorized \(the server wants an API key: .*--api-key-env/);
    const wrong = parseEndpoint(keyed.url, { apiKeyEnv: 'MY_KEY', env: { MY_KEY: 'nope' } });
    await expect(probeServer(wrong, undefined)).rejects.toThrow(/HTTP 401: Unauthorized \(the server refused the key in \$MY_KEY/);
    const right = parseEndpoint(keyed.url, { apiKeyEnv: 'MY_KEY', env: { MY_KEY: 'sekret' } });
    await expect(probeServer(right, undefined)).resolves.toMatchObject({ model: 'gpt2' });
  });

  it('names the base URL when given a route of it, and takes a root with extra slashes as its /v1', () => {
    expect(() => parseEndpoint('http://127.0.0.1:8000/v1/completions')).toThrow(
      "--endpoint http://127.0.0.1:8000/v1/completions: that is the server's /completions route, not its OpenAI base URL; try --endpoint http://127.0.0.1:8000/v1",
    );
    expect(() => parseEndpoint('https://me:pw@llm.example.com/openai/v1/chat/completions/?k=1')).toThrow(/\/chat\/completions route.*try --endpoint https:\/\/llm\.example\.com\/openai\/v1$/);
    // Credentials never reach the message.
    expect(() => parseEndpoint('https://me:pw@llm.example.com/v1/models')).toThrow(/^--endpoint https:\/\/llm\.example\.com\/v1\/models: /);
    expect(parseEndpoint('http://127.0.0.1:8000//')).toMatchObject({ base: 'http://127.0.0.1:8000/v1', root: 'http://127.0.0.1:8000' });
  });

  it('says what --endpoint takes when the server has no /models under the URL given', async () => {
    const other = parseEndpoint(keyed.url.replace(/\/v1$/, '/api'));
    await expect(probeServer(other, undefined)).rejects.toThrow(/HTTP 404: .*\(--endpoint takes the server's OpenAI base URL/);
  });

  it('says what it waited for when a server takes the connection and never answers', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const target = parseEndpoint(`http://127.0.0.1:${(silent.address() as { port: number }).port}/v1`, { timeoutMs: 300 });
      await expect(probeServer(target, undefined)).rejects.toThrow(/timed out \(no answer to GET http:\/\/127\.0\.0\.1:\d+\/v1\/models in 0\.3 s: is the server still starting/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('names --request-timeout when a stream falls silent', async () => {
    const slow = await startFakeServer({ prefillMs: 2000 });
    try {
      const outcome = await streamCompletion(parseEndpoint(slow.url, { timeoutMs: 100 }), { model: 'gpt2', prompt: 'hi', maxTokens: 2, ignoreEos: false });
      expect(outcome.error).toBe('timed out waiting for the server: nothing for 0.1 s (--request-timeout)');
    } finally {
      await slow.close();
    }
  });
});
