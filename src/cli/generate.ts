// kb generate: one request through the bundled engine; prints the text, the token ids and
// the request's timings.
import type { Command } from 'commander';
import { UserError } from './errors.ts';

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
  ignoreEos?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('generate')
    .description('generate text for one prompt with the bundled GPT-2 engine and show its timings')
    .option('--model <name>', 'named model config: gpt2-tiny, gpt2, gpt2-medium (default gpt2-tiny, seeded synthetic weights)')
    .option('--weights <dir>', 'a Hugging Face GPT-2 folder (config.json + model.safetensors) instead of --model')
    .option('--prompt <text>', 'the prompt, tokenized with GPT-2 BPE')
    .option('--prompt-ids <ids>', 'the prompt as token ids, comma-separated (bypasses the tokenizer)')
    .option('--max-new-tokens <n>', 'tokens to generate at most', '32')
    .option('--temperature <t>', '0 = greedy', '0')
    .option('--top-k <k>', 'sample among the k most likely tokens; 0 = off', '0')
    .option('--top-p <p>', 'sample within the smallest set of probability mass p; 1 = off', '1')
    .option('--seed <n>', 'seed of the sampling draws', '0')
    .option('--backend <name>', 'cpu computes in TypeScript; webgpu in WGSL (a GPU or lavapipe); sim times a modelled GPU (its tokens are not language)', 'cpu')
    .option('--threads <n>', 'cpu threads (default: all cores)')
    .option('--ignore-eos', 'keep generating past <|endoftext|>')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample: kb generate --prompt "The KV cache" --max-new-tokens 16')
    .action(async (flags: GenerateFlags) => {
      const request = parseFlags(flags);
      const { generateOnce } = await import('./generate-run.ts');
      const result = await generateOnce(request);
      if (flags.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else process.stdout.write(`${formatResult(result)}\n`);
    });
}

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
  backend: 'cpu' | 'webgpu' | 'sim';
  threads: number | undefined;
  ignoreEos: boolean;
}

function parseFlags(flags: GenerateFlags): GenerateCommandRequest {
  if (flags.model !== undefined && flags.weights !== undefined) throw new UserError('give --model or --weights, not both');
  if ((flags.prompt === undefined) === (flags.promptIds === undefined)) throw new UserError('give exactly one of --prompt TEXT or --prompt-ids 1,2,3');
  if (!['cpu', 'webgpu', 'sim'].includes(flags.backend)) throw new UserError(`--backend must be cpu, webgpu or sim (got ${flags.backend})`);
  return {
    model: flags.model,
    weightsDir: flags.weights,
    prompt: flags.prompt,
    promptIds: flags.promptIds === undefined ? undefined : parseIds(flags.promptIds),
    maxNewTokens: integer('--max-new-tokens', flags.maxNewTokens, 1),
    temperature: number('--temperature', flags.temperature, (v) => v >= 0, '>= 0'),
    topK: integer('--top-k', flags.topK, 0),
    topP: number('--top-p', flags.topP, (v) => v > 0 && v <= 1, 'in (0, 1]'),
    seed: integer('--seed', flags.seed, 0),
    backend: flags.backend as GenerateCommandRequest['backend'],
    threads: flags.threads === undefined ? undefined : integer('--threads', flags.threads, 1),
    ignoreEos: flags.ignoreEos ?? false,
  };
}

function parseIds(text: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => !/^\d+$/.test(part))) {
    throw new UserError(`--prompt-ids must be comma-separated non-negative integers (got "${text}")`);
  }
  return parts.map(Number);
}

function integer(flag: string, text: string, min: number): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || value < min) throw new UserError(`${flag} must be an integer >= ${min} (got ${text})`);
  return value;
}

function number(flag: string, text: string, ok: (value: number) => boolean, range: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || !ok(value)) throw new UserError(`${flag} must be a number ${range} (got ${text})`);
  return value;
}

type GenerateResult = Awaited<ReturnType<typeof import('./generate-run.ts').generateOnce>>;

function formatResult(r: GenerateResult): string {
  const f = (value: number | null, unit: string) => (value === null ? 'n/a' : `${value.toFixed(2)} ${unit}`);
  return [
    r.text,
    '',
    `model: ${r.model} (${r.weights})  backend: ${r.backend}, ${r.device}`,
    `prompt ids (${r.promptIds.length}): ${r.promptIds.join(',')}`,
    `output ids (${r.outputIds.length}): ${r.outputIds.join(',')}`,
    `finish: ${r.finishReason}`,
    `TTFT ${f(r.timings.ttftMs, 'ms')}  TPOT ${f(r.timings.tpotMs, 'ms/token')}  ` +
      `decode ${f(r.timings.decodeTokensPerS, 'tokens/s')}  total ${f(r.timings.latencyMs, 'ms')}`,
  ].join('\n');
}
