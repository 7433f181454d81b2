// POST /v1/completions and POST /v1/chat/completions, streaming or not, in the shapes
// OpenAI's API defines and vLLM's server returns (ids, objects, chunks, usage, stop_reason).
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError, badRequest, errorBody } from './api-error.ts';
import { applyChatTemplate } from './chat-template.ts';
import { type Finish, Generation, type GenerationParams } from './generation.ts';
import { chatSchema, completionSchema, parseBody, type ChatBody, type CompletionBody } from './request-schemas.ts';
import { checkModel, checkRequestFits, longestOutput, requireTokenizer, type ServeContext } from './serve-context.ts';
import { SseWriter } from './sse.ts';

/** vLLM's default max_tokens for /v1/completions (OpenAI's legacy default). */
export const COMPLETIONS_DEFAULT_MAX_TOKENS = 16;

type Kind = 'completion' | 'chat';

export function registerCompletionRoutes(app: FastifyInstance, ctx: ServeContext, active: Set<Generation>): void {
  app.post('/v1/completions', (request, reply) => {
    const arrival = ctx.engine.now();
    const body = parseBody(completionSchema, request.body);
    checkModel(ctx, body.model);
    return serve(ctx, active, 'completion', body, completionPromptIds(ctx, body), arrival, reply);
  });
  app.post('/v1/chat/completions', (request, reply) => {
    const arrival = ctx.engine.now();
    const body = parseBody(chatSchema, request.body);
    checkModel(ctx, body.model);
    const promptIds = requireTokenizer(ctx, 'messages').encode(applyChatTemplate(body.messages));
    return serve(ctx, active, 'chat', body, promptIds, arrival, reply);
  });
}

function completionPromptIds(ctx: ServeContext, body: CompletionBody): number[] {
  let prompt = body.prompt;
  if (Array.isArray(prompt) && prompt.length > 0 && (typeof prompt[0] === 'string' || Array.isArray(prompt[0]))) {
    if (prompt.length !== 1) throw badRequest('prompt: batched prompts are not supported; send one prompt per request', 'prompt');
    prompt = prompt[0] as string | number[];
  }
  if (typeof prompt === 'string') return requireTokenizer(ctx, 'prompt').encode(prompt);
  return [...(prompt as number[])];
}

function generationParams(ctx: ServeContext, kind: Kind, body: CompletionBody | ChatBody, promptIds: number[]): GenerationParams {
  if (body.stream_options && !body.stream) throw badRequest('stream_options can only be given with stream: true', 'stream_options');
  const maxParam = kind === 'chat' && (body as ChatBody).max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens';
  const requested = kind === 'chat' ? ((body as ChatBody).max_completion_tokens ?? body.max_tokens) : body.max_tokens;
  // vLLM: completions default to 16 tokens; chat to whatever the context leaves (here also
  // the KV pool, which vLLM sizes to hold a whole context).
  const maxTokens = requested ?? (kind === 'completion' ? COMPLETIONS_DEFAULT_MAX_TOKENS : Math.max(1, longestOutput(ctx, promptIds.length)));
  checkRequestFits(ctx, promptIds, maxTokens, { param: maxParam, defaulted: requested == null }, kind === 'chat' ? 'messages' : 'prompt');
  const topK = body.top_k ?? 0;
  return {
    promptIds,
    maxTokens,
    temperature: body.temperature ?? 1,
    topP: body.top_p ?? 1,
    topK: topK < 0 ? 0 : topK,
    seed: body.seed ?? undefined,
    stop: body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop,
    stopTokenIds: body.stop_token_ids ?? [],
    ignoreEos: body.ignore_eos ?? false,
  };
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

const usage = (prompt: number, completion: number): Usage => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });

async function serve(
  ctx: ServeContext,
  active: Set<Generation>,
  kind: Kind,
  body: CompletionBody | ChatBody,
  promptIds: number[],
  arrival: number,
  reply: FastifyReply,
): Promise<unknown> {
  const params = generationParams(ctx, kind, body, promptIds);
  const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID().replaceAll('-', '')}`;
  const created = Math.floor(Date.now() / 1000);
  const model = ctx.modelName;
  const object = kind === 'chat' ? 'chat.completion.chunk' : 'text_completion';
  const res = reply.raw;

  if (!body.stream) {
    const generation = new Generation(ctx, params, arrival, () => {});
    const leave = watchDisconnect(res, generation, active);
    const result = await generation.done.finally(leave);
    const choice =
      kind === 'chat'
        ? { index: 0, message: { role: 'assistant', content: result.text }, logprobs: null, finish_reason: result.finish.reason, stop_reason: result.finish.stopReason }
        : { index: 0, text: result.text, logprobs: null, finish_reason: result.finish.reason, stop_reason: result.finish.stopReason };
    return {
      id,
      object: kind === 'chat' ? 'chat.completion' : 'text_completion',
      created,
      model,
      choices: [choice],
      usage: usage(promptIds.length, result.completionTokens),
    };
  }

  const includeUsage = body.stream_options?.include_usage === true;
  // vLLM's continuous_usage_stats (with include_usage): every chunk carries the counts so far.
  // Accepted and ignored, it left `usage: null` on each chunk for a client counting on them.
  const continuousUsage = includeUsage && body.stream_options?.continuous_usage_stats === true;
  const sse = new SseWriter(res);
  // OpenAI sends `usage: null` on every chunk once usage was asked for, and the totals last.
  // Every token's chunk differs from the last only in its text and finish fields, so the rest
  // of its JSON is written once per request (JSON.stringify per token costs the event loop
  // that the other streams share).
  const head = `{"id":${JSON.stringify(id)},"object":"${object}","created":${created},"model":${JSON.stringify(model)},"choices":[{"index":0,`;
  const fixedTail = `}]${includeUsage ? ',"usage":null' : ''}}`;
  const tail = (tokens: number) => (continuousUsage ? `}],"usage":${JSON.stringify(usage(promptIds.length, tokens))}}` : fixedTail);
  const ending = (finish: Finish | null) =>
    `,"logprobs":null,"finish_reason":${JSON.stringify(finish?.reason ?? null)},"stop_reason":${JSON.stringify(finish?.stopReason ?? null)}`;
  let first = true;
  const chunk = (delta: string, finish: Finish | null, tokens: number) => {
    if (finish) sse.holdUntilEnd();
    if (kind === 'chat') {
      // The assistant's role goes out once, just before its first content, as vLLM does.
      if (first) sse.sendJson(`${head}"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null${tail(0)}`);
      const content = delta === '' && finish ? '{}' : `{"content":${JSON.stringify(delta)}}`;
      sse.sendJson(`${head}"delta":${content}${ending(finish)}${tail(tokens)}`);
    } else {
      sse.sendJson(`${head}"text":${JSON.stringify(delta)}${ending(finish)}${tail(tokens)}`);
    }
    first = false;
  };
  // A chunk for every token, as vLLM's server sends them: one that adds no text yet (half a
  // character, a held-back stop prefix) sends empty text. Sending nothing for it moved the
  // client's first chunk, which `vllm bench serve` and `kb lab --endpoint` time TTFT by, past
  // the first token: 4 of 32 greedy requests read 250-320 ms against the server's 60.
  const generation = new Generation(ctx, params, arrival, (delta, finish, tokens) => chunk(delta, finish, tokens));
  const leave = watchDisconnect(res, generation, active);
  reply.hijack();
  try {
    const result = await generation.done;
    if (includeUsage) sse.send({ id, object, created, model, choices: [], usage: usage(promptIds.length, result.completionTokens) });
  } catch (error) {
    if (!sse.hasStarted && error instanceof ApiError) {
      res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(error.body()));
      return undefined;
    }
    sse.send(errorBody(error instanceof ApiError ? error.status : 500, (error as Error).message));
  } finally {
    leave();
  }
  sse.end();
  return undefined;
}

/** Tracks the generation while it runs; a client that hangs up aborts it (freeing its KV blocks). */
function watchDisconnect(res: ServerResponse, generation: Generation, active: Set<Generation>): () => void {
  active.add(generation);
  const onClose = () => {
    if (!res.writableFinished) generation.abort();
  };
  res.once('close', onClose);
  return () => {
    active.delete(generation);
    res.off('close', onClose);
  };
}
