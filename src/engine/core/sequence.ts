// A request inside the engine: its tokens (prompt, then output), how many of them already
// have K/V in the cache, the blocks holding them, and its sampling settings.

export interface SamplingParams {
  /** 0 = greedy. */
  temperature: number;
  /** 0 = off. */
  topK: number;
  /** 1 = off. */
  topP: number;
  /** Seed of this request's uniform draws. */
  seed: number;
  maxNewTokens: number;
  /** Generation stops after emitting one of these (e.g. GPT-2's <|endoftext|>). */
  stopTokenIds: readonly number[];
  /** Finishes with 'stop' after this many tokens (Infinity: never); see GenerateRequest. */
  stopAfterTokens: number;
}

export type SequenceStatus = 'waiting' | 'running' | 'finished';
export type FinishReason = 'length' | 'stop' | 'context' | 'aborted';

export class Sequence {
  readonly id: number;
  readonly params: SamplingParams;
  /** Prompt then output; sized once so appending a token never allocates. */
  readonly tokens: Int32Array;
  readonly numPromptTokens: number;
  numTokens: number;
  /** Tokens whose K/V is in the cache (a cached prefix counts). */
  numComputed = 0;
  /** Tokens scheduled in the step in flight. */
  numScheduled = 0;
  /** Whether the step in flight samples this sequence's next token (all its tokens computed). */
  samples = false;
  blockTable: number[] = [];
  status: SequenceStatus = 'waiting';
  /** Set once, when the sequence is first scheduled; kept across preemptions. */
  admitted = false;
  preemptions = 0;

  /** `allocate` gives the zero-filled token array (the engine carves them out of shared chunks). */
  constructor(id: number, prompt: ArrayLike<number>, params: SamplingParams, maxTokens: number, allocate: (length: number) => Int32Array = (n) => new Int32Array(n)) {
    this.id = id;
    this.params = params;
    this.tokens = allocate(maxTokens);
    this.tokens.set(prompt);
    this.numPromptTokens = prompt.length;
    this.numTokens = prompt.length;
  }

  get numOutputTokens(): number {
    return this.numTokens - this.numPromptTokens;
  }

  /** Tokens still to run through the model before the next sample (1 when decoding). */
  get numUncomputed(): number {
    return this.numTokens - this.numComputed;
  }

  append(token: number): void {
    this.tokens[this.numTokens++] = token;
  }
}
