// A thin, bench-only OpenAI-compatible front over llama.cpp (through node-llama-cpp): one
// context with N sequences, so llama.cpp's own batching decodes every running request in one
// batch. A request takes a free sequence (or waits for one: queue time), evaluates its prompt
// ids (prefill, to the first token) and streams a token per SSE chunk until max_tokens;
// node-llama-cpp's evaluate() does not stop at end-of-text, so outputs have exact lengths as
// with ignore_eos. /metrics exports vLLM's queue/prefill/TTFT/decode/e2e histograms, so kb's
// endpoint client reports the same server-side split for llama.cpp as for vLLM.
// Not a server for users: token-id prompts only, greedy, no auth, loopback.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Histogram, latencyEdges, ttftEdges } from '../../test/helpers/fake-openai-server.ts';
import { F32_KV_CACHE, type LlamaModel, type LlamaSequence } from '../peer-llamacpp/node-llama-cpp.ts';

export interface LlamaFront {
  url: string;
  close(): Promise<void>;
}

export async function startLlamaCppFront(
  model: LlamaModel,
  options: { name: string; version: string; sequences: number; threads: number; contextSize: number; batchSize: number },
): Promise<LlamaFront> {
  const context = await model.createContext({
    contextSize: options.contextSize * options.sequences,
    batchSize: options.batchSize,
    threads: options.threads,
    sequences: options.sequences,
    ...F32_KV_CACHE,
  });
  const free: LlamaSequence[] = Array.from({ length: options.sequences }, () => context.getSequence());
  const waiting: Array<(sequence: LlamaSequence) => void> = [];
  const h = {
    queue: new Histogram('vllm:request_queue_time_seconds', 'Time waiting for a free llama.cpp sequence.', latencyEdges),
    prefill: new Histogram('vllm:request_prefill_time_seconds', 'Time from a sequence to the first token.', latencyEdges),
    decode: new Histogram('vllm:request_decode_time_seconds', 'Time from the first token to the last.', latencyEdges),
    ttft: new Histogram('vllm:time_to_first_token_seconds', 'Arrival to the first token.', ttftEdges),
    e2e: new Histogram('vllm:e2e_request_latency_seconds', 'Arrival to the last token.', latencyEdges),
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const acquire = (): Promise<LlamaSequence> => {
    const sequence = free.pop();
    return sequence ? Promise.resolve(sequence) : new Promise((resolve) => waiting.push(resolve));
  };
  const release = (sequence: LlamaSequence) => {
    const next = waiting.shift();
    if (next) next(sequence);
    else free.push(sequence);
  };

  async function complete(res: ServerResponse, body: Record<string, unknown>) {
    const prompt = body.prompt;
    if (!Array.isArray(prompt) || prompt.length === 0 || !prompt.every((t) => Number.isInteger(t))) {
      return json(res, 400, { error: { message: 'this bench front takes prompts as token ids only', type: 'BadRequestError', param: 'prompt', code: 400 } });
    }
    const maxTokens = Number(body.max_tokens ?? 16);
    const arrived = performance.now();
    let closed = false;
    res.on('close', () => (closed = true));
    const sequence = await acquire();
    const scheduled = performance.now();
    h.queue.observe((scheduled - arrived) / 1000);
    const id = `cmpl-${Math.random().toString(36).slice(2)}`;
    const chunk = (choices: unknown[], usage: unknown = null) => `data: ${JSON.stringify({ id, object: 'text_completion', created: 0, model: options.name, choices, usage })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let produced = 0;
    let firstToken = scheduled;
    try {
      await sequence.clearHistory();
      const tokens = sequence.evaluate(prompt as number[], { temperature: 0 });
      for (; produced < maxTokens && !closed; ) {
        const next = await tokens.next();
        if (next.done) break;
        produced += 1;
        if (produced === 1) {
          firstToken = performance.now();
          h.prefill.observe((firstToken - scheduled) / 1000);
          h.ttft.observe((firstToken - arrived) / 1000);
        }
        res.write(chunk([{ index: 0, text: ` <${next.value}>`, logprobs: null, finish_reason: produced === maxTokens ? 'length' : null }]));
      }
      await tokens.return();
    } finally {
      release(sequence);
    }
    const done = performance.now();
    h.decode.observe((done - firstToken) / 1000);
    h.e2e.observe((done - arrived) / 1000);
    if (closed) return;
    res.write(chunk([], { prompt_tokens: prompt.length, completion_tokens: produced, total_tokens: prompt.length + produced }));
    res.end('data: [DONE]\n\n');
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: options.name, object: 'model', owned_by: 'llama.cpp' }] });
      if (req.method === 'GET' && path === '/version') return json(res, 200, { name: 'llama.cpp', version: options.version });
      if (req.method === 'GET' && path === '/metrics') {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
        return res.end(`${Object.values(h).map((x) => x.text(`engine="0",model_name="${options.name}"`)).join('\n')}\n`);
      }
      if (req.method === 'POST' && path === '/v1/completions') {
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
        } catch {
          return json(res, 400, { error: { message: 'malformed JSON', type: 'BadRequestError', param: null, code: 400 } });
        }
        // The probe sends text; answer it with one token of an id prompt.
        if (typeof body.prompt === 'string') body.prompt = [464];
        return void complete(res, body);
      }
      json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'NotFoundError', param: null, code: 404 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await context.dispose();
    },
  };
}
