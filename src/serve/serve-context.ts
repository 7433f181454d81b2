// What every route needs: the engine, the model as the API names it, its tokenizer, the
// metrics, and the limits a request is checked against before it reaches the engine.
import { type Engine, gpt2Tokenizer, type Tokenizer } from '../engine/index.ts';
import { ApiError, badRequest } from './api-error.ts';
import type { MetricsText, RequestMetrics } from './serve-metrics.ts';
import type { WaitingCount } from './waiting-count.ts';

export interface ServeContext {
  engine: Engine;
  /** The id clients pass as `model` (and /v1/models lists). */
  modelName: string;
  /** GPT-2's BPE when the model uses GPT-2's vocabulary, else null (token ids only). */
  tokenizer: Tokenizer | null;
  metrics: RequestMetrics;
  /** /metrics: this server's metrics (every API server thread's) and the engine's state. */
  scrapeMetrics(): Promise<MetricsText>;
  /** Requests submitted that have not yet produced a token, at most (more get 429). */
  maxWaiting: number;
  /** Requests submitted and not yet started (no token yet), counted against maxWaiting. */
  waiting: WaitingCount;
  /** Unix seconds the server started (`created` of /v1/models). */
  startedAt: number;
}

export function contextLength(ctx: ServeContext): number {
  return ctx.engine.info.model.nCtx;
}

/** A request naming another model is a 404, in vLLM's words; leaving `model` out means the one served. */
export function checkModel(ctx: ServeContext, model: string | null | undefined): void {
  if (model !== undefined && model !== null && model !== ctx.modelName) {
    throw new ApiError(404, `The model \`${model}\` does not exist.`, 'model');
  }
}

/** The model's tokenizer, or a 400 saying text needs GPT-2's vocabulary. */
export function requireTokenizer(ctx: ServeContext, param: string): Tokenizer {
  if (ctx.tokenizer) return ctx.tokenizer;
  throw badRequest(`${param}: text needs GPT-2's vocabulary; this model has ${ctx.engine.info.model.vocabSize} tokens, so send token ids`, param);
}

/**
 * The most tokens a request with this prompt can generate: what the context leaves, and what
 * the KV pool could hold beside the prompt (the last token needs no slot). Chat's default
 * max_tokens: "what the context leaves" alone, on a pool smaller than the context
 * (--set engine.kvBudgetMB), refused every chat request that did not send max_tokens.
 */
export function longestOutput(ctx: ServeContext, promptTokens: number): number {
  const { model, numBlocks, blockSize } = ctx.engine.info;
  return Math.min(model.nCtx - promptTokens, numBlocks * blockSize + 1 - promptTokens);
}

/** How a request's output length was set: the field it came in, or the default it got when none did. */
export interface MaxTokensSource {
  param: string;
  /** The client left it out: `maxTokens` is the route's default. */
  defaulted: boolean;
}

/**
 * Checks a request against the model and the KV pool, as the engine would, so a request
 * that can never run is a 400 naming the limit rather than a failed stream. `promptParam`
 * names the prompt as the client sent it (`messages` for chat).
 */
export function checkRequestFits(ctx: ServeContext, promptIds: readonly number[], maxTokens: number, max: MaxTokensSource, promptParam = 'prompt'): void {
  const { model, numBlocks, blockSize, scheduler } = ctx.engine.info;
  const maxTokensParam = max.param;
  const promptTokens = promptIds.length;
  if (promptTokens === 0) throw badRequest('the prompt is empty', 'prompt');
  const bad = promptIds.findIndex((id) => id >= model.vocabSize);
  if (bad !== -1) throw badRequest(`prompt token ${bad} (${promptIds[bad]}) is not an id in [0, ${model.vocabSize})`, 'prompt');
  if (promptTokens >= model.nCtx) {
    // No room for one output token, whatever max_tokens says: the prompt is what must change
    // (a chat request without max_tokens read "max_tokens 1", a number the client never sent).
    throw badRequest(
      `this model's maximum context length is ${model.nCtx} tokens and the ${promptParam === 'messages' ? 'messages (with the chat template) have' : 'prompt has'} ${promptTokens}; shorten ${promptParam === 'messages' ? 'them' : 'it'} to at most ${model.nCtx - 1} to leave room for the output`,
      promptParam,
    );
  }
  if (promptTokens + maxTokens > model.nCtx) {
    const given = max.defaulted ? `${maxTokensParam} ${maxTokens} (the default; send a smaller one)` : `${maxTokensParam} ${maxTokens}`;
    throw badRequest(
      `this model's maximum context length is ${model.nCtx} tokens; the request has ${promptTokens} prompt tokens and ${given} (${promptTokens + maxTokens} in all)`,
      maxTokensParam,
    );
  }
  // The last token is sampled but never fed back, so it needs no KV slot (the engine's rule).
  const slots = Math.min(promptTokens + maxTokens - 1, model.nCtx);
  const needed = Math.ceil(slots / blockSize);
  if (needed > numBlocks) {
    // A default that does not fit is the longest the pool allows (longestOutput): the prompt is too long.
    const lower = max.defaulted ? `shorten the ${promptParam}` : `lower ${maxTokensParam} or the prompt`;
    throw badRequest(
      `the request needs ${needed} KV blocks (${slots} tokens of ${blockSize} per block) but the KV pool holds ${numBlocks}; ${lower}, or start kb serve with a larger --set engine.kvBudgetMB`,
      max.defaulted ? promptParam : maxTokensParam,
    );
  }
  if (scheduler.chunkSize === 0 && promptTokens > scheduler.maxBatchedTokens) {
    throw badRequest(
      `the prompt has ${promptTokens} tokens, more than the step budget engine.maxBatchedTokens (${scheduler.maxBatchedTokens}) with chunked prefill off (engine.chunkSize=0)`,
      'prompt',
    );
  }
}
