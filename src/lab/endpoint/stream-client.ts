// One streaming completion, timed as `vllm bench serve` times it: the clock starts just
// before the request is sent; every SSE chunk that carries text is stamped on arrival (the
// first one is the first token; the gaps between them are ITL, per chunk, not per token);
// the server's `usage` gives the token counts when it sends them.
import { createParser } from 'eventsource-parser';
import { Agent, request as undiciRequest } from 'undici';
import { connectionLost, errorBodyMessage, failureReason, HttpStatusError, isSilenceTimeout } from './endpoint-errors.ts';
import { headers, type EndpointTarget } from './target.ts';

export interface CompletionRequest {
  model: string;
  /** Text, or token ids (exact lengths: the server tokenizes nothing). */
  prompt: string | number[];
  maxTokens: number;
  ignoreEos: boolean;
}

export interface RequestOutcome {
  /** performance.now() just before sending, and when the stream ended. */
  sentAt: number;
  endedAt: number;
  /** Arrival of every chunk that carried text. */
  chunkTimes: number[];
  /** usage.completion_tokens, else the chunks counted. */
  outputTokens: number;
  /** usage.prompt_tokens, or null when the server sent no usage. */
  usagePromptTokens: number | null;
  /** Why the request failed, or null. */
  error: string | null;
  /** Set when it failed for want of a server to talk to ("connection refused"): see connectionLost. */
  lostConnection?: string;
}

interface CompletionChunk {
  choices?: Array<{ text?: string; delta?: { content?: string }; finish_reason?: string | null }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: { message?: string };
}

export function requestBody(request: CompletionRequest): string {
  return JSON.stringify({
    model: request.model,
    prompt: request.prompt,
    max_tokens: request.maxTokens,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
    ...(request.ignoreEos ? { ignore_eos: true } : {}),
  });
}

// undici's request() rather than fetch(): the same client under Node's fetch, without the
// WHATWG streams and signal plumbing that made fetch cost ~0.4 ms of CPU per tiny request
// here (bench/endpoint-client). One keep-alive pool per origin, no cap on connections: a
// cap, when wanted, is --max-concurrency's, on the client and in the open. Idle sockets are
// dropped after 4 s, before servers drop them (uvicorn, under vLLM and SGLang, after 5 s,
// without saying so in a Keep-Alive header): a request sent on a socket the server is closing
// fails with "the server closed the connection", which happened here between rounds.
const dispatcher = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000, keepAliveTimeoutThreshold: 2_000 });

export async function streamCompletion(target: EndpointTarget, request: CompletionRequest, signal?: AbortSignal): Promise<RequestOutcome> {
  const body = requestBody(request);
  const chunkTimes: number[] = [];
  let outputTokens: number | null = null;
  let usagePromptTokens: number | null = null;
  let streamError: string | null = null;
  // How the stream ended: an OpenAI stream names a finish reason on its last text chunk and
  // closes with [DONE]. Without them the server never finished the request.
  let finishReason: string | null = null;
  let done = false;
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      const now = performance.now();
      let chunk: CompletionChunk;
      try {
        chunk = JSON.parse(event.data) as CompletionChunk;
      } catch {
        streamError ??= `the stream sent a chunk that is not JSON: ${event.data.slice(0, 80)}`;
        return;
      }
      if (chunk.error) streamError ??= `the stream reported an error: ${chunk.error.message ?? 'no message'}`;
      // Every chunk with a choice times a token, its text empty or not, as `vllm bench serve`
      // counts them (vLLM sends empty text for a token that completes no character). Counting
      // text chunks alone put TTFT at the first whole character, after the first token.
      if (chunk.choices?.[0]) chunkTimes.push(now);
      const reason = chunk.choices?.[0]?.finish_reason;
      if (typeof reason === 'string') finishReason = reason;
      if (chunk.usage) {
        if (typeof chunk.usage.completion_tokens === 'number') outputTokens = chunk.usage.completion_tokens;
        if (typeof chunk.usage.prompt_tokens === 'number') usagePromptTokens = chunk.usage.prompt_tokens;
      }
    },
  });
  const sentAt = performance.now();
  try {
    const response = await undiciRequest(`${target.base}/completions`, {
      method: 'POST',
      headers: headers(target, true),
      body,
      dispatcher,
      // Inactivity limits: a server silent for this long is given up on.
      headersTimeout: target.timeoutMs,
      bodyTimeout: target.timeoutMs,
      ...(signal ? { signal } : {}),
    });
    if (response.statusCode < 200 || response.statusCode >= 300) throw new HttpStatusError(response.statusCode, errorBodyMessage(await response.body.text()));
    const type = String(response.headers['content-type'] ?? '');
    if (!type.includes('text/event-stream')) {
      throw new Error(`the server answered ${type || 'without a content type'}, not a stream (text/event-stream): does it stream completions?`);
    }
    response.body.setEncoding('utf8');
    for await (const text of response.body) parser.feed(text as string);
    if (streamError === null && chunkTimes.length === 0) streamError = 'the stream ended without any token (no chunk with a choice)';
    // A request the server gave up on (vLLM and kb serve end the open ones with "abort" when
    // they shut down) or a stream cut off midway made fewer tokens than the run asked for:
    // counted as a success, its short output passed for the lab's and its times for a request's.
    if (streamError === null && finishReason === 'abort') streamError = 'the server aborted the request (finish_reason "abort") before it finished';
    if (streamError === null && finishReason === null && !done) streamError = 'the stream ended before the request finished (no finish_reason, no [DONE])';
  } catch (error) {
    // A stalled server: say how long it was silent and which flag sets that, not only "timed out".
    const reason = isSilenceTimeout(error) ? `${failureReason(error)}: nothing for ${target.timeoutMs / 1000} s (--request-timeout)` : failureReason(error);
    const lost = connectionLost(error);
    return { sentAt, endedAt: performance.now(), chunkTimes, outputTokens: outputTokens ?? chunkTimes.length, usagePromptTokens, error: reason, ...(lost ? { lostConnection: lost } : {}) };
  }
  return { sentAt, endedAt: performance.now(), chunkTimes, outputTokens: outputTokens ?? chunkTimes.length, usagePromptTokens, error: streamError };
}
