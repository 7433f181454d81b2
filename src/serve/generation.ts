// One request from the API's point of view: submit it to the engine, turn its tokens into
// text deltas (cut at stop strings), decide the finish reason on the token that ends it (so
// the last text and the finish reason leave in one chunk, as vLLM sends them), and record
// its metrics. The engine's step loop runs in its worker; nothing here waits on a step.
import type { RequestHandle } from '../engine/index.ts';
import { badRequest, ApiError } from './api-error.ts';
import type { ServeContext } from './serve-context.ts';
import type { ServeFinishReason } from './serve-metrics.ts';
import { TextStream } from './text-stream.ts';

export interface GenerationParams {
  promptIds: number[];
  maxTokens: number;
  temperature: number;
  topP: number;
  topK: number;
  seed: number | undefined;
  stop: string[];
  stopTokenIds: number[];
  ignoreEos: boolean;
}

export interface Finish {
  reason: ServeFinishReason;
  /** vLLM's stop_reason: the stop string or stop token id that ended it; null for EOS or length. */
  stopReason: string | number | null;
}

export interface GenerationResult {
  text: string;
  finish: Finish;
  completionTokens: number;
}

/** Receives each piece of text and the count of tokens generated so far; `finish` is set on the last call. */
export type DeltaSink = (delta: string, finish: Finish | null, tokens: number) => void;

/** The engine's own failures read "engine failed: …" or "engine closed" (src/engine/engine.ts); anything else refuses the request. */
function engineError(message: string): ApiError {
  if (message.startsWith('engine failed')) return new ApiError(500, message);
  if (message === 'engine closed') return new ApiError(503, 'the server is shutting down');
  return badRequest(message);
}

export class QueueFullError extends ApiError {
  constructor(limit: number) {
    super(429, `the waiting queue is full (${limit} requests not yet started; --max-waiting); retry later`);
  }
}

export class Generation {
  readonly done: Promise<GenerationResult>;
  private readonly handle: RequestHandle;
  private ended = false;

  constructor(ctx: ServeContext, params: GenerationParams, arrival: number, sink: DeltaSink) {
    if (!ctx.waiting.tryAdd(ctx.maxWaiting)) throw new QueueFullError(ctx.maxWaiting);
    const eos = ctx.tokenizer?.eosTokenId;
    const stopIds = new Set(params.stopTokenIds);
    const engineStops = [...params.stopTokenIds];
    if (eos !== undefined && !params.ignoreEos) engineStops.push(eos);
    this.handle = ctx.engine.submit({
      promptIds: params.promptIds,
      maxNewTokens: params.maxTokens,
      temperature: params.temperature,
      topP: params.topP,
      topK: params.topK,
      ...(params.seed === undefined ? {} : { seed: params.seed }),
      stopTokenIds: engineStops,
    });
    const text = ctx.tokenizer
      ? new TextStream(ctx.tokenizer, params.stop, new Set(eos === undefined ? [] : [eos]))
      : null;
    this.done = this.pump(ctx, params, arrival, sink, text, stopIds, eos);
  }

  /** Stops the request (the client left, or the server is shutting down); its blocks free at the next step. */
  abort(): void {
    if (!this.ended) this.handle.abort();
  }

  private async pump(
    ctx: ServeContext,
    params: GenerationParams,
    arrival: number,
    sink: DeltaSink,
    text: TextStream | null,
    stopIds: ReadonlySet<number>,
    eos: number | undefined,
  ): Promise<GenerationResult> {
    const { metrics, engine } = ctx;
    const timeline = this.handle.timeline;
    const tokenTimes: number[] = [];
    let started = false;
    const start = () => {
      if (!started) {
        started = true;
        ctx.waiting.remove();
      }
    };
    let finish: Finish | null = null;
    let end = 0;
    try {
      for await (const event of this.handle) {
        if (event.type === 'token') {
          start();
          metrics.token(event.time, tokenTimes.length > 0 ? tokenTimes[tokenTimes.length - 1] : null, arrival, params.promptIds.length);
          tokenTimes.push(event.time);
          if (stopIds.has(event.token)) finish = { reason: 'stop', stopReason: event.token };
          else if (event.token === eos && !params.ignoreEos) finish = { reason: 'stop', stopReason: null };
          else if (tokenTimes.length >= params.maxTokens) finish = { reason: 'length', stopReason: null };
          let delta = '';
          if (text) {
            const step = text.push(event.token, finish !== null);
            delta = step.delta;
            if (step.stopString !== null) {
              finish = { reason: 'stop', stopReason: step.stopString };
              this.handle.abort();
            }
          }
          end = event.time;
          sink(delta, finish, tokenTimes.length);
          if (finish) break;
        } else if (event.type === 'finish') {
          // Ended without a token that says why: aborted, or the context filled.
          finish = { reason: event.reason === 'aborted' ? 'abort' : event.reason === 'stop' ? 'stop' : 'length', stopReason: null };
          end = event.time;
          sink(text ? text.flush() : '', finish, tokenTimes.length);
        } else {
          start();
          // Before any output: the engine refused the request (the client's fault, 400), or
          // the engine itself failed or is closing (the server's, 500/503).
          if (tokenTimes.length === 0) throw engineError(event.message);
          finish = { reason: 'abort', stopReason: null };
          end = event.time;
          sink(text ? text.flush() : '', finish, tokenTimes.length);
        }
      }
    } finally {
      start();
      this.ended = true;
    }
    const final = finish ?? { reason: 'abort', stopReason: null };
    metrics.finished({
      arrival,
      submit: timeline.submitStart,
      admit: timeline.admit,
      tokenTimes,
      end: end || engine.now(),
      promptTokens: params.promptIds.length,
      maxTokens: params.maxTokens,
      reason: final.reason,
    });
    return { text: text?.text ?? '', finish: final, completionTokens: tokenTimes.length };
  }
}
