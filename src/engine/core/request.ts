// What a client sends (a request) and what the engine sends back (events), as plain data
// that crosses the worker boundary unchanged.
import type { FinishReason } from './sequence.ts';

export interface GenerateRequest {
  promptIds: ArrayLike<number>;
  maxNewTokens: number;
  /** 0 (default) = greedy. */
  temperature?: number;
  /** 0 (default) = off. */
  topK?: number;
  /** 1 (default) = off. */
  topP?: number;
  /** Default: derived from the engine seed and the request id. */
  seed?: number;
  stopTokenIds?: readonly number[];
  /**
   * Ends the request with reason 'stop' after this many tokens, as if the model had sampled
   * a stop token there: benchmarks use it to give synthetic weights outputs shorter than
   * maxNewTokens (what a server must still plan for when it reserves memory up front).
   */
  stopAfterTokens?: number;
}

/** Events leave the loop once per step for admissions and tokens (not one object per token). */
export type EngineEvent =
  | { type: 'admit'; ids: number[]; time: number }
  | { type: 'tokens'; ids: number[]; tokens: number[]; time: number }
  | { type: 'finish'; id: number; reason: FinishReason; time: number }
  | { type: 'error'; id: number; message: string; time: number };

/** Checks a request's shape; returns the problem or null. */
export function requestProblem(request: GenerateRequest, vocabSize: number): string | null {
  const ids = request.promptIds;
  if (!ids || typeof ids.length !== 'number') return 'promptIds must be an array of token ids';
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) return `prompt token ${i} (${id}) is not an id in [0, ${vocabSize})`;
  }
  if (!Number.isInteger(request.maxNewTokens) || request.maxNewTokens < 1) return `maxNewTokens must be an integer >= 1 (got ${request.maxNewTokens})`;
  const { temperature = 0, topK = 0, topP = 1 } = request;
  if (!(temperature >= 0) || !Number.isFinite(temperature)) return `temperature must be >= 0 (got ${temperature})`;
  if (!Number.isInteger(topK) || topK < 0) return `topK must be an integer >= 0 (got ${topK})`;
  if (!(topP > 0 && topP <= 1)) return `topP must be in (0, 1] (got ${topP})`;
  const { stopAfterTokens } = request;
  if (stopAfterTokens !== undefined && (!Number.isInteger(stopAfterTokens) || stopAfterTokens < 1)) {
    return `stopAfterTokens must be an integer >= 1 (got ${stopAfterTokens})`;
  }
  if (request.seed !== undefined && !Number.isInteger(request.seed)) return `seed must be an integer (got ${request.seed})`;
  return null;
}
