// The run's plain HTTP calls to a server (its model list, version, /tokenize, /metrics, the
// one-token probe), sent with undici's request() as the stream client sends completions. Not
// fetch(): the fetch standard refuses its "bad ports" (6000, 6665-6669, 10080, ...), and a
// server a learner started may well listen on one (kb serve --port 6000 was answered "bad port").
import { request } from 'undici';

export interface HttpReply {
  status: number;
  ok: boolean;
  /** The body, read whole. */
  text: string;
}

export async function httpCall(url: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; timeoutMs: number }): Promise<HttpReply> {
  const response = await request(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body, signal: AbortSignal.timeout(init.timeoutMs) });
  const text = await response.body.text();
  return { status: response.statusCode, ok: response.statusCode >= 200 && response.statusCode < 300, text };
}
