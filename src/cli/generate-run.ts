// The engine side of kb generate, loaded only when the command runs.
import { type BackendKind, type Engine, createEngine, resolveModelConfig, DEFAULT_BLOCK_SIZE, requestMetrics, gpt2Tokenizer } from '../engine/index.ts';
import { UserError } from './errors.ts';

/**
 * `onStart`: called once the request is submitted; `signal`: aborting it then stops the
 * request, and the result has the tokens so far (finish reason 'aborted').
 */
export async function generateOnce(request: GenerateCommandRequest, control: { signal?: AbortSignal; onStart?: () => void } = {}) {
  const { signal } = control;
  const model = request.model ?? 'gpt2-tiny';
  let config;
  try {
    config = resolveModelConfig(model, request.weightsDir);
  } catch (error) {
    throw new UserError((error as Error).message);
  }
  // The tokenizer's ids only mean text for GPT-2's own vocabulary.
  const gpt2Vocab = config.vocabSize === gpt2Tokenizer.vocabSize;
  if (request.prompt !== undefined && !gpt2Vocab) {
    throw new UserError(`--prompt needs GPT-2's vocabulary (${gpt2Tokenizer.vocabSize}); this model has ${config.vocabSize}: use --prompt-ids`);
  }
  const promptIds = request.promptIds ?? gpt2Tokenizer.encode(request.prompt!);
  if (promptIds.length === 0) throw new UserError('the prompt is empty');
  if (promptIds.length > config.nCtx) {
    throw new UserError(`the prompt has ${promptIds.length} tokens; ${config.name}'s context is ${config.nCtx}`);
  }
  const bad = promptIds.find((id) => id >= config.vocabSize);
  if (bad !== undefined) throw new UserError(`--prompt-ids: ${bad} is not a token id of ${config.name} (vocabulary ${config.vocabSize})`);

  let engine: Engine;
  try {
    engine = await createEngine({
      model,
      weightsDir: request.weightsDir,
      backend: request.backend,
      threads: request.threads,
      profile: request.profile,
      seed: request.seed,
      // One request: a pool just big enough for it.
      numBlocks: Math.ceil(Math.min(promptIds.length + request.maxNewTokens, config.nCtx) / DEFAULT_BLOCK_SIZE),
      scheduler: { maxNumSeqs: 1, prefillMaxBatch: 1, maxBatchedTokens: promptIds.length, chunkSize: 0 },
    });
  } catch (error) {
    // Bad weights files and settings surface here with messages naming the file or field.
    throw new UserError((error as Error).message);
  }
  // --backend auto took a GPU: the threads asked for are not used (sim and webgpu refuse them outright).
  if (request.threads !== undefined && engine.info.backend !== 'cpu') {
    process.stderr.write(`kb: --threads ${request.threads}: --backend auto chose ${engine.info.backend}, which has no cpu threads; left out\n`);
  }
  try {
    const handle = engine.submit({
      promptIds,
      maxNewTokens: request.maxNewTokens,
      temperature: request.temperature,
      topK: request.topK,
      topP: request.topP,
      seed: request.seed,
      stopTokenIds: gpt2Vocab && !request.ignoreEos ? [gpt2Tokenizer.eosTokenId] : [],
    });
    const abort = () => handle.abort();
    signal?.addEventListener('abort', abort, { once: true });
    control.onStart?.();
    const result = await handle.done.finally(() => signal?.removeEventListener('abort', abort));
    // An aborted request's timeline carries the error 'aborted', which keeps it out of any
    // summary; its tokens are measured all the same, up to the last of them.
    const timeline =
      result.finishReason === 'aborted' ? { ...result.timeline, error: null, finish: result.timeline.tokenTimes.at(-1) ?? null } : result.timeline;
    if (timeline.error !== null) throw new UserError(timeline.error);
    const metrics = requestMetrics(timeline);
    const decodeTokensPerS =
      metrics && metrics.tpotMs !== null && metrics.tpotMs > 0 ? 1000 / metrics.tpotMs : null;
    // Only with --profile; null when the backend chosen cannot time its kernels (cpu, sim).
    const profile = request.profile ? ((await engine.profile()) ?? null) : undefined;
    return {
      model: config.name,
      vocabSize: config.vocabSize,
      weights: engine.info.weights,
      // Seeded random weights (no --weights): the text means nothing, the timings are real.
      syntheticWeights: request.weightsDir === undefined,
      backend: engine.info.backend,
      device: engine.info.device,
      description: engine.info.description,
      ...(profile === undefined ? {} : { profile }),
      promptIds,
      outputIds: result.outputIds,
      // null, not '': a vocabulary other than GPT-2's has no tokenizer here, so no text exists
      // (an empty string read as a model that generated nothing).
      text: gpt2Vocab ? gpt2Tokenizer.decode(result.outputIds) : null,
      finishReason: result.finishReason,
      timings: {
        ttftMs: metrics?.ttftMs ?? null,
        // TTFT's first part (submit() itself): without it the parts fell short of TTFT.
        addRequestMs: metrics?.addRequestMs ?? null,
        queueWaitMs: metrics?.queueWaitMs ?? null,
        prefillToFirstTokenMs: metrics?.prefillToFirstTokenMs ?? null,
        tpotMs: metrics?.tpotMs ?? null,
        decodeTokensPerS,
        latencyMs: metrics?.latencyMs ?? null,
      },
    };
  } finally {
    await engine.close();
  }
}

/** A kb generate run, its flags checked. */
export interface GenerateCommandRequest {
  model: string | undefined;
  weightsDir: string | undefined;
  prompt: string | undefined;
  promptIds: number[] | undefined;
  maxNewTokens: number;
  temperature: number;
  topK: number;
  topP: number;
  seed: number;
  backend: BackendKind | 'sim';
  threads: number | undefined;
  profile: boolean;
  ignoreEos: boolean;
}
