// A small OpenAI-compatible server for tests of kb's endpoint client, following vLLM's
// formats: SSE completion chunks (`text_completion`, a final chunk with finish_reason, a
// usage chunk with empty choices when stream_options.include_usage, then `data: [DONE]`),
// /tokenize, /version, /v1/models, and /metrics with vLLM's histogram names, label sets and
// bucket edges. It simulates a server with `slots` sequences at once: a request waits for a
// slot (queue time), then prefills (prefillMs), then streams a token every decodeMs.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeServerOptions {
  model?: string;
  slots?: number;
  prefillMs?: number;
  decodeMs?: number;
  /** Every Nth completion answers HTTP 500 (0: never). */
  failEvery?: number;
  metrics?: boolean;
  /** false: /metrics without vllm:time_to_first_token_seconds (only the phase histograms). */
  ttftHistogram?: boolean;
  tokenize?: boolean;
  version?: boolean;
  /** Answer 400 naming ignore_eos, as a strict OpenAI server would. */
  rejectIgnoreEos?: boolean;
  /** Send no usage chunk even when asked. */
  usage?: boolean;
  /** Answer one JSON body even when asked to stream. */
  ignoreStream?: boolean;
  /** Require `Authorization: Bearer <key>` on /v1 routes, as `vllm serve --api-key` does. */
  apiKey?: string;
  /**
   * Stream this many tokens, then end the request with finish_reason "abort" (and usage and
   * [DONE]), as vLLM and kb serve do to the requests open when they shut down.
   */
  abortAfter?: number;
  /** Stream this many tokens, then end the response with neither a finish_reason nor [DONE] (a server or proxy gone). */
  dropAfter?: number;
  /** The first this many tokens complete no character: their chunks carry empty text, as vLLM sends them. */
  emptyFirst?: number;
}

// vLLM v1's edges (vllm/v1/metrics/loggers.py): TTFT, and request latencies for queue/prefill/decode/e2e.
export const ttftEdges = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0];
export const latencyEdges = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0];

/** One vLLM-named histogram in Prometheus text (also used by bench/peer-server's front). */
export class Histogram {
  readonly counts: number[];
  count = 0;
  sum = 0;
  readonly name: string;
  readonly help: string;
  readonly edges: number[];
  constructor(name: string, help: string, edges: number[]) {
    this.name = name;
    this.help = help;
    this.edges = edges;
    this.counts = edges.map(() => 0);
  }
  observe(seconds: number) {
    this.count += 1;
    this.sum += seconds;
    this.edges.forEach((edge, i) => {
      if (seconds <= edge) this.counts[i] += 1;
    });
  }
  text(labels: string): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    this.edges.forEach((edge, i) => lines.push(`${this.name}_bucket{${labels},le="${edge.toFixed(edge < 1 ? 3 : 1)}"} ${this.counts[i].toFixed(1)}`));
    lines.push(`${this.name}_bucket{${labels},le="+Inf"} ${this.count.toFixed(1)}`, `${this.name}_count{${labels}} ${this.count.toFixed(1)}`, `${this.name}_sum{${labels}} ${this.sum}`);
    return lines.join('\n');
  }
}

export interface FakeServer {
  url: string;
  /** Completions received (streaming or not), and those answered to the end. */
  completions: number;
  finished: number;
  /** Most completions open at once. */
  maxOpen: number;
  /** Bodies of every completion request. */
  bodies: unknown[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeServer(options: FakeServerOptions = {}): Promise<FakeServer> {
  const model = options.model ?? 'gpt2';
  const slots = options.slots ?? 4;
  const prefillMs = options.prefillMs ?? 2;
  const decodeMs = options.decodeMs ?? 1;
  let free = slots;
  const waiting: Array<() => void> = [];
  const h = {
    queue: new Histogram('vllm:request_queue_time_seconds', 'Histogram of time spent in WAITING phase for request.', latencyEdges),
    prefill: new Histogram('vllm:request_prefill_time_seconds', 'Histogram of time spent in PREFILL phase for request.', latencyEdges),
    decode: new Histogram('vllm:request_decode_time_seconds', 'Histogram of time spent in DECODE phase for request.', latencyEdges),
    ttft: new Histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', ttftEdges),
    e2e: new Histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', latencyEdges),
  };
  let running = 0;
  const state: FakeServer = { url: '', completions: 0, finished: 0, maxOpen: 0, bodies: [], close: async () => {} };
  let open = 0;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, message: string, param: string | null = null) =>
    json(res, status, { error: { message, type: status === 400 ? 'BadRequestError' : 'InternalServerError', param, code: status } });
  const tokensOf = (prompt: unknown): number[] | null => {
    if (Array.isArray(prompt) && prompt.every((t) => Number.isInteger(t))) return prompt as number[];
    if (typeof prompt === 'string') return prompt.split(/\s+/).filter(Boolean).map((w) => [...w].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 50000, 7));
    return null;
  };

  async function complete(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) {
    state.completions += 1;
    state.bodies.push(body);
    if (options.failEvery && state.completions % options.failEvery === 0) return error(res, 500, 'the fake engine failed on purpose');
    if (options.rejectIgnoreEos && 'ignore_eos' in body) return error(res, 400, 'Unrecognized request argument supplied: ignore_eos', 'ignore_eos');
    if (body.model !== model) return error(res, 404, `The model \`${String(body.model)}\` does not exist.`, 'model');
    const prompt = tokensOf(body.prompt);
    if (prompt === null || prompt.length === 0) return error(res, 400, 'prompt must be a string or a list of token ids', 'prompt');
    const maxTokens = Number(body.max_tokens ?? 16);
    const arrived = performance.now();
    open += 1;
    state.maxOpen = Math.max(state.maxOpen, open);
    let closed = false;
    res.on('close', () => (closed = true));
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    const scheduled = performance.now();
    h.queue.observe((scheduled - arrived) / 1000);
    try {
      await sleep(prefillMs);
      const firstToken = performance.now();
      h.prefill.observe((firstToken - scheduled) / 1000);
      h.ttft.observe((firstToken - arrived) / 1000);
      const stream = body.stream === true && !options.ignoreStream;
      const id = `cmpl-${state.completions}`;
      const created = Math.floor(Date.now() / 1000);
      const chunk = (choices: unknown[], usage: unknown = null) => `data: ${JSON.stringify({ id, object: 'text_completion', created, model, choices, usage })}\n\n`;
      if (stream) res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      let text = '';
      const cutAt = Math.min(maxTokens, options.abortAfter ?? options.dropAfter ?? Infinity);
      for (let i = 0; i < cutAt && !closed; i++) {
        if (i > 0) await sleep(decodeMs);
        const piece = i < (options.emptyFirst ?? 0) ? '' : ` t${i}`;
        text += piece;
        const last = i === maxTokens - 1;
        if (stream) res.write(chunk([{ index: 0, text: piece, logprobs: null, finish_reason: last ? 'length' : null, stop_reason: null }]));
      }
      if (stream && cutAt < maxTokens) {
        if (options.dropAfter !== undefined) return void res.end();
        const usage = { prompt_tokens: prompt.length, total_tokens: prompt.length + cutAt, completion_tokens: cutAt };
        res.write(chunk([{ index: 0, text: '', logprobs: null, finish_reason: 'abort', stop_reason: null }]));
        res.write(chunk([], usage));
        return void res.end('data: [DONE]\n\n');
      }
      const done = performance.now();
      h.decode.observe((done - firstToken) / 1000);
      h.e2e.observe((done - arrived) / 1000);
      const usage = { prompt_tokens: prompt.length, total_tokens: prompt.length + maxTokens, completion_tokens: maxTokens };
      const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true && options.usage !== false;
      if (stream) {
        if (wantsUsage) res.write(chunk([], usage));
        res.end('data: [DONE]\n\n');
      } else {
        json(res, 200, { id, object: 'text_completion', created, model, choices: [{ index: 0, text, logprobs: null, finish_reason: 'length', stop_reason: null }], usage });
      }
      if (!closed) state.finished += 1;
    } finally {
      open -= 1;
      running -= 1;
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    }
  }

  const metricsText = () => {
    const labels = `engine="0",model_name="${model}"`;
    return [
      '# HELP vllm:num_requests_running Number of requests in model execution batches.',
      '# TYPE vllm:num_requests_running gauge',
      `vllm:num_requests_running{${labels}} ${running.toFixed(1)}`,
      '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
      '# TYPE vllm:num_requests_waiting gauge',
      `vllm:num_requests_waiting{${labels}} ${waiting.length.toFixed(1)}`,
      ...Object.entries(h)
        .filter(([key]) => key !== 'ttft' || options.ttftHistogram !== false)
        .map(([, x]) => x.text(labels)),
      '',
    ].join('\n');
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      let body: Record<string, unknown> = {};
      if (chunks.length > 0) {
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          return error(res, 400, 'malformed JSON');
        }
      }
      if (options.apiKey !== undefined && path.startsWith('/v1/') && req.headers.authorization !== `Bearer ${options.apiKey}`) return error(res, 401, 'Unauthorized');
      if (req.method === 'GET' && path === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'fake', max_model_len: 1024 }] });
      if (req.method === 'GET' && path === '/version' && options.version !== false) return json(res, 200, { version: '0.0.0-fake' });
      if (req.method === 'GET' && path === '/health') return res.end();
      if (req.method === 'GET' && path === '/metrics' && options.metrics !== false) {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        return res.end(metricsText());
      }
      if (req.method === 'POST' && path === '/tokenize' && options.tokenize !== false) {
        const tokens = tokensOf(body.prompt) ?? [];
        return json(res, 200, { count: tokens.length, max_model_len: 1024, tokens, token_strs: null });
      }
      if (req.method === 'POST' && path === '/v1/completions') return void complete(req, res, body);
      error(res, 404, `no route ${req.method} ${path}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
