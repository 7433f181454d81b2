// kb generate: one request through the bundled engine; prints the text, the token ids and
// the request's timings.
import type { Command } from 'commander';
import { numberOption, plainNumber, wholeNumberIn } from './number-option.ts';
import { type BackendKind, type KernelProfile, gpt2Tokenizer, kernelProfileLines } from '../engine/index.ts';
import { ExitCode, UserError } from './errors.ts';
import type { GenerateCommandRequest } from './generate-run.ts';
import { helpText } from './help-layout.ts';
import { fittedToTerminal } from './terminal-output.ts';

interface GenerateFlags {
  model?: string;
  weights?: string;
  prompt?: string;
  promptIds?: string;
  maxNewTokens: string;
  temperature: string;
  topK: string;
  topP: string;
  seed: string;
  backend: string;
  threads?: string;
  profile?: boolean;
  ignoreEos?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('generate')
    .description('generate text for one prompt with the bundled GPT-2 engine and show its timings')
    .argument('[prompt...]', 'the prompt (as --prompt TEXT; quote it, or give it as words)')
    .option('--model <name>', 'named model config, with seeded synthetic weights: gpt2-tiny, gpt2 or gpt2-medium (default: "gpt2-tiny")')
    .option('--weights <dir>', 'a Hugging Face GPT-2 folder (config.json + model.safetensors) instead of --model')
    .option('--prompt <text>', 'the prompt, tokenized with GPT-2 BPE')
    .option('--prompt-ids <ids>', 'the prompt as token ids, comma-separated (bypasses the tokenizer)')
    .addOption(numberOption('--max-new-tokens <n>', 'tokens to generate at most', 32))
    .addOption(numberOption('--temperature <t>', '0 = greedy', 0))
    .addOption(numberOption('--top-k <k>', 'sample among the k most likely tokens; 0 = off', 0))
    .addOption(numberOption('--top-p <p>', 'sample within the smallest set of probability mass p; 1 = off', 1))
    .addOption(numberOption('--seed <n>', 'seed of the sampling draws, 0 to 4294967295', 0))
    .option(
      '--backend <name>',
      'cpu runs WebAssembly SIMD kernels on this CPU\'s cores; webgpu runs WGSL kernels (a GPU, or lavapipe without one); ' +
        'auto takes a hardware GPU if there is one, else cpu; sim times a modelled GPU (its tokens are not language)',
      'cpu',
    )
    .option('--threads <n>', 'cpu backend threads (default: all cores); refused with --backend sim or webgpu, which have none')
    .option('--profile', 'time every kernel (webgpu: GPU timestamps where the adapter has them, else CPU-side) and print the table')
    .option('--ignore-eos', 'keep generating past <|endoftext|>')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      helpText(
        '\nCtrl-C while it generates stops it and prints the tokens so far with their timings (exit 130); ' +
          'pressed while the model loads, or again, it quits at once.\n\nExample:\n  kb generate "The KV cache" --max-new-tokens 16 --temperature 0.8 --top-p 0.95',
      ),
    )
    .action(async (words: string[], flags: GenerateFlags) => {
      const { parseBackendKind } = await import('../engine/index.ts');
      if (words.length > 0 && flags.prompt !== undefined) throw new UserError('give the prompt once: as words or as --prompt TEXT');
      const request = parseFlags(words.length > 0 ? { ...flags, prompt: words.join(' ') } : flags, parseBackendKind);
      const { generateOnce } = await import('./generate-run.ts');
      // Ctrl-C ended the process and took what a long generation had made with it: it now
      // stops the request, whose tokens and timings so far are printed (as a lab run stops).
      // Before the request starts (loading the model, a WebGPU warm-up) there is nothing to
      // keep, and Ctrl-C quits at once.
      const controller = new AbortController();
      let started = false;
      const onSigint = () => {
        if (!started || controller.signal.aborted) {
          // Ended by the signal itself, as without this handler (the shell then starts a new line).
          process.off('SIGINT', onSigint);
          process.kill(process.pid, 'SIGINT');
          return;
        }
        process.stderr.write('\nkb: stopping; what was generated so far follows (Ctrl-C again: quit at once)\n');
        controller.abort();
      };
      process.on('SIGINT', onSigint);
      let result: GenerateResult;
      try {
        result = await generateOnce(request, { signal: controller.signal, onStart: () => (started = true) });
      } finally {
        process.off('SIGINT', onSigint);
      }
      if (flags.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else process.stdout.write(`${await fittedToTerminal(formatResult(result))}\n`);
      if (result.finishReason === 'aborted') process.exitCode = ExitCode.interrupted;
    });
}

function parseFlags(flags: GenerateFlags, parseBackendKind: (value: string) => BackendKind): GenerateCommandRequest {
  if (flags.model !== undefined && flags.weights !== undefined) throw new UserError('give --model or --weights, not both');
  if ((flags.prompt === undefined) === (flags.promptIds === undefined)) throw new UserError('give exactly one of a prompt (kb generate "TEXT", or --prompt TEXT) or --prompt-ids 1,2,3');
  const backend = parseBackend(flags.backend, parseBackendKind);
  // The sim and webgpu have no CPU threads: --threads was taken and ignored, so a run looked
  // like it had used them. Refused, as kb lab refuses a sim device on a real backend.
  if (flags.threads !== undefined && (backend === 'sim' || backend === 'webgpu')) {
    throw new UserError(`--threads ${flags.threads}: the cpu backend's threads; it does nothing on ${backend} (drop it, or use --backend cpu)`);
  }
  return {
    model: flags.model,
    weightsDir: flags.weights,
    prompt: flags.prompt,
    promptIds: flags.promptIds === undefined ? undefined : parseIds(flags.promptIds),
    maxNewTokens: integer('--max-new-tokens', flags.maxNewTokens, 1),
    temperature: number('--temperature', flags.temperature, (v) => v >= 0, '>= 0'),
    topK: integer('--top-k', flags.topK, 0),
    topP: number('--top-p', flags.topP, (v) => v > 0 && v <= 1, 'in (0, 1]'),
    // The engine hashes the seed as 32 bits: a larger one would draw what another seed draws.
    seed: integer('--seed', flags.seed, 0, MAX_SEED),
    backend,
    threads: flags.threads === undefined ? undefined : integer('--threads', flags.threads, 1),
    profile: flags.profile ?? false,
    ignoreEos: flags.ignoreEos ?? false,
  };
}

/** The engine's backend kinds, plus the sim, which runs without a backend device. */
function parseBackend(value: string, parseBackendKind: (value: string) => BackendKind): GenerateCommandRequest['backend'] {
  if (value === 'sim') return 'sim';
  try {
    return parseBackendKind(value);
  } catch (error) {
    throw new UserError(`--backend: ${(error as Error).message}, sim`);
  }
}

function parseIds(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => !/^\d+$/.test(part))) {
    throw new UserError(`--prompt-ids must be comma-separated non-negative integers (got "${text}")`);
  }
  // Past 2^53 a number is a rounded float: the vocabulary check named 1e+23 for what was typed.
  const huge = parts.find((part) => !Number.isSafeInteger(Number(part)));
  if (huge !== undefined) throw new UserError(`--prompt-ids: ${huge} is not a token id (no vocabulary is that large)`);
  return parts.map(Number);
}

const MAX_SEED = 2 ** 32 - 1;

function integer(flag: string, text: string, min: number, max?: number): number {
  const value = wholeNumberIn(text, min, max);
  if (value === null) throw new UserError(`${flag} must be an integer ${max === undefined ? `>= ${min}` : `from ${min} to ${max}`} (got ${text})`);
  return value;
}

/** A decimal number in range: `--temperature 0x10` was read as 16, and 1e1 as 10. */
function number(flag: string, text: string, ok: (value: number) => boolean, range: string): number {
  const value = plainNumber(text);
  if (value === null || !ok(value)) throw new UserError(`${flag} must be a decimal number ${range} (got ${text})`);
  return value;
}

type GenerateResult = Awaited<ReturnType<typeof import('./generate-run.ts').generateOnce>>;

/** Said under the text, so nobody takes gibberish from random weights for a broken engine. */
function syntheticNote(backend: string): string {
  return backend === 'sim'
    ? '(sim backend: a cost model times each step and no weights exist, so the tokens are not language; the timings model a GPU)'
    : '(synthetic weights: seeded random values, so the text is gibberish; the timings are real. For real text, --weights DIR with a Hugging Face GPT-2 folder)';
}

function formatResult(r: GenerateResult): string {
  const f = (value: number | null, unit: string) => (value === null ? 'n/a' : `${value.toFixed(2)} ${unit}`);
  return [
    // No text for a vocabulary kb has no tokenizer for: the output began with two empty lines
    // and no word why; it now says so where the text would be.
    r.text ??
      `(no text: this model's vocabulary (${r.vocabSize} tokens) is not GPT-2's (${gpt2Tokenizer.vocabSize}), the only one kb can decode; its tokens are the output ids below)`,
    // The sim never reads weight values, --weights or not: its tokens are never language.
    ...(r.syntheticWeights || r.backend === 'sim' ? [syntheticNote(r.backend)] : []),
    '',
    `model: ${r.model}, ${r.weights}`,
    `backend: ${r.description}`,
    // A space after each comma: a long list wraps between ids, never inside one (and still pastes into --prompt-ids "…").
    `prompt ids (${r.promptIds.length}): ${r.promptIds.join(', ')}`,
    `output ids (${r.outputIds.length}): ${r.outputIds.join(', ')}`,
    `finish: ${r.finishReason === 'aborted' ? 'aborted (Ctrl-C)' : r.finishReason}`,
    `TTFT ${f(r.timings.ttftMs, 'ms')}  TPOT ${f(r.timings.tpotMs, 'ms/token')}  ` +
      `decode ${f(r.timings.decodeTokensPerS, 'tokens/s')}  total ${f(r.timings.latencyMs, 'ms')}`,
    ...(r.profile === undefined ? [] : ['', profileText(r.profile, r.backend)]),
  ].join('\n');
}

/** The --profile output: the kernel table, or why there is none. */
function profileText(profile: KernelProfile | null, backend: string): string {
  if (profile === null) return `profile: none; per-kernel timing needs the webgpu backend (this run used ${backend})`;
  return kernelProfileLines(profile).join('\n');
}
