// A lean streaming client for the serve benchmark: node:http with keep-alive, one POST per
// request, SSE events split by hand (no client library, so the client costs as little of the
// shared cores as it can). TTFT is timed as vLLM's `bench serve` times it: from just before
// the request is sent to the first chunk that carries a choice.
import { Agent, request } from 'node:http';

export interface StreamOutcome {
  /** ms from just before sending. */
  ttftMs: number | null;
  latencyMs: number;
  /** Start and end on performance.now()'s clock, for the run's duration. */
  start: number;
  end: number;
  /** Chunks that carried a choice: one a token (kb serve, like vLLM, sends one even when its text is empty). */
  chunks: number;
  completionTokens: number | null;
  error: string | null;
}

export function keepAliveAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: Infinity });
}

export function streamCompletion(baseUrl: string, body: Record<string, unknown>, agent: Agent): Promise<StreamOutcome> {
  const url = new URL('/v1/completions', baseUrl);
  const payload = JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } });
  return new Promise((resolve) => {
    const start = performance.now();
    let ttftMs: number | null = null;
    let chunks = 0;
    let completionTokens: number | null = null;
    let buffer = '';
    const done = (error: string | null) => {
      const end = performance.now();
      resolve({ ttftMs, latencyMs: end - start, start, end, chunks, completionTokens, error });
    };
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        if (res.statusCode !== 200) {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => (text += d));
          res.on('end', () => done(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (data: string) => {
          buffer += data;
          for (let cut = buffer.indexOf('\n\n'); cut !== -1; cut = buffer.indexOf('\n\n')) {
            const event = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
            // Only the usage and error chunks are parsed: a token's chunk is known by its
            // non-empty choices, which keeps the client's share of the shared cores small.
            if (event.includes('"choices":[{')) {
              if (ttftMs === null) ttftMs = performance.now() - start;
              chunks++;
              continue;
            }
            const chunk = JSON.parse(event.slice(6));
            if (chunk.error) return done(chunk.error.message);
            if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
          }
        });
        res.on('end', () => done(null));
        res.on('error', (error) => done(error.message));
      },
    );
    req.on('error', (error) => done(error.message));
    req.end(payload);
  });
}
