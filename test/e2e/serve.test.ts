// kb serve as a user runs it: the real CLI in a child process, the official openai client
// against it, bad flags refused in one line, and SIGTERM during open streams ending them
// cleanly with exit code 0 within 5 s.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { runKb } from '../helpers/kb-cli.ts';
import { startKbServe, stopKbServes } from '../helpers/kb-serve.ts';
import { availableParallelism } from 'node:os';

afterEach(stopKbServes);

/** kb serve's start-up lines, before the access log. */
const BANNER_LINES = 6;

describe('kb serve (the real CLI)', () => {
  it('prints its URL and a curl line, serves the openai client, and logs one JSON line per request', async () => {
    const serve = await startKbServe([]);
    expect(serve.stdout()).toMatch(/^kb serve: gpt2-tiny \(cpu, .*\)\non http:\/\/127\.0\.0\.1:\d+ \(Ctrl-C to stop\)\n/);
    expect(serve.stdout()).toMatch(/try: curl http:\/\/127\.0\.0\.1:\d+\/v1\/completions \\\n {7}-H 'Content-Type: application\/json' \\\n {7}-d '\{"model": "gpt2-tiny"/);
    expect(serve.stdout()).toMatch(/or a lab: kb lab ttft-breakdown --endpoint http:\/\/127\.0\.0\.1:\d+\/v1\n/);
    const banner = serve.stdout().split('\n').slice(0, BANNER_LINES);
    for (const line of banner) expect(line.length, line).toBeLessThanOrEqual(80);
    const client = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const stream = await client.completions.create({ model: 'gpt2-tiny', prompt: 'Hello', max_tokens: 4, stream: true, stream_options: { include_usage: true }, ignore_eos: true } as never);
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.Completion>) usage = chunk.usage ?? usage;
    expect(usage?.completion_tokens).toBe(4);
    const health = await fetch(`${serve.url}/health`);
    expect(health.status).toBe(200);
    serve.child.kill('SIGTERM');
    expect((await serve.exited).code).toBe(0);
    const log = serve.stdout().trim().split('\n').slice(BANNER_LINES).map((line) => JSON.parse(line));
    expect(log.map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual(['POST /v1/completions 200', 'GET /health 200']);
    expect(typeof log[0].ms).toBe('number');
  });

  it('on SIGTERM during open streams, ends each with a last chunk and [DONE], and exits 0 within 5 s', async () => {
    const serve = await startKbServe(['--quiet']);
    const bodies = Array.from({ length: 3 }, async () => {
      const res = await fetch(`${serve.url}/v1/completions`, {
        method: 'POST',
        body: JSON.stringify({ prompt: 'Keep going', max_tokens: 1000, ignore_eos: true, stream: true }),
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text;
        text += decoder.decode(value, { stream: true });
      }
    });
    // Wait until all three are streaming.
    for (let i = 0; i < 200; i++) {
      const metrics = await fetch(`${serve.url}/metrics`).then((r) => r.text());
      if (/vllm:num_requests_running\{[^}]*\} 3/.test(metrics)) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const signalled = performance.now();
    serve.child.kill('SIGTERM');
    const texts = await Promise.all(bodies);
    const { code } = await serve.exited;
    expect(code).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(5000);
    for (const text of texts) {
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
      const events = text.split('\n\n').filter((e) => e.startsWith('data: {'));
      expect(JSON.parse(events.at(-1)!.slice(6)).choices[0].finish_reason).toBe('abort');
    }
    expect(serve.stderr()).toMatch(/SIGTERM, ending 3 open requests and stopping/);
  });

  it('refuses bad flags in one line before starting', () => {
    const setWorkload = runKb(['serve', '--set', 'workload.requests=3']);
    expect(setWorkload.code).toBe(1);
    expect(setWorkload.stderr).toBe('kb: --set workload.requests: kb serve takes engine.* keys only (the clients choose the workload)\n');
    const badValue = runKb(['serve', '--set', 'engine.maxNumSeqs=0']);
    expect(badValue.code).toBe(1);
    expect(badValue.stderr).toMatch(/^kb: --set engine\.maxNumSeqs=0: engine\.maxNumSeqs .*\n$/);
    const port = runKb(['serve', '--port', '99999']);
    expect(port.stderr).toBe('kb: --port must be an integer in [0, 65535] (got 99999)\n');
    expect(runKb(['serve', '--backend', 'webgpu', '--threads', '4']).stderr).toBe("kb: --threads 4: the cpu backend's threads; it does nothing on webgpu (drop it, or use --backend cpu)\n");
    const sim = runKb(['serve', '--backend', 'sim']);
    expect(sim.stderr).toMatch(/^kb: --backend sim runs on a virtual clock/);
    // Each refusal names the flag typed and what to use instead.
    expect(runKb(['serve', '--set', 'backend=sim']).stderr).toBe('kb: --set backend: kb serve takes engine.* keys only (use --backend)\n');
    expect(runKb(['serve', '--model', 'gpt3']).stderr).toBe('kb: --model gpt3: must be gpt2-tiny | gpt2 | gpt2-medium, got "gpt3"\n');
    expect(runKb(['serve', '--set', 'engine.foo=1']).stderr).toBe('kb: --set engine.foo=1: unknown setting "engine.foo" (kb lab --help lists the keys)\n');
    // The closest engine key, not a lab's ("workload.requests").
    expect(runKb(['serve', '--set', 'engine.maxNumSeq=8']).stderr).toBe('kb: --set engine.maxNumSeq=8: unknown setting "engine.maxNumSeq"; did you mean engine.maxNumSeqs? (kb lab --help lists the keys)\n');
    // A KV budget too small for one block, in the flag's words (the engine's named no setting).
    expect(runKb(['serve', '--model', 'gpt2-tiny', '--set', 'engine.kvBudgetMB=0.01']).stderr).toBe('kb: --set engine.kvBudgetMB=0.01: holds no KV block (a block of 16 tokens of gpt2-tiny takes 0.0625 MiB)\n');
  });

  it('keeps serving when the reader of its log goes away (kb serve | head; found as a user: it exited 0)', async () => {
    const serve = await startKbServe([]);
    serve.child.stdout.destroy();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${serve.url}/health`);
      expect(res.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(serve.child.exitCode).toBeNull();
  });

  it('warns when --threads asks for more threads than the machine has cores', async () => {
    const cores = availableParallelism();
    const serve = await startKbServe(['--quiet', '--threads', String(cores + 1)]);
    expect(serve.stderr()).toContain(`kb: warning: --threads ${cores + 1} on ${cores} cores: each step waits for threads that have no core`);
  });

  it('says so in one line when the port is taken', async () => {
    const serve = await startKbServe(['--quiet']);
    const port = new URL(serve.url).port;
    const second = runKb(['serve', '--port', port]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(`kb: port ${port} on 127.0.0.1 is in use; choose another with --port\n`);
  });
});
