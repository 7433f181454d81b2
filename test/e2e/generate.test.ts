import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { writeSafetensorsWeights } from '../../src/engine/model/safetensors.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';
import { spawnKb } from '../helpers/kb-cli-async.ts';
import { runKb, tempDir } from '../helpers/kb-cli.ts';

describe('kb generate', () => {
  it('generates from token ids and prints ids and timings as JSON', () => {
    const run = runKb(['generate', '--prompt-ids', '464,509,53', '--max-new-tokens', '5', '--ignore-eos', '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ model: 'gpt2-tiny', backend: 'cpu', promptIds: [464, 509, 53], finishReason: 'length' });
    expect(result.outputIds).toHaveLength(5);
    expect(typeof result.text).toBe('string');
    expect(result.timings.ttftMs).toBeGreaterThan(0);
    expect(result.timings.tpotMs).toBeGreaterThan(0);
    expect(result.timings.decodeTokensPerS).toBeGreaterThan(0);
    // The parts add up to the wholes, as the README defines them (adding the request is TTFT's first part).
    const t = result.timings;
    expect(t.ttftMs).toBeCloseTo(t.addRequestMs + t.queueWaitMs + t.prefillToFirstTokenMs, 9);
    expect(t.latencyMs).toBeCloseTo(t.ttftMs + t.tpotMs * (result.outputIds.length - 1), 9);
    expect(t.decodeTokensPerS).toBeCloseTo(1000 / t.tpotMs, 9);
  });

  it('is repeatable: same seed and prompt, same tokens, also when sampling', () => {
    const args = ['generate', '--prompt', 'The KV cache', '--max-new-tokens', '4', '--temperature', '0.9', '--top-k', '50', '--seed', '7', '--ignore-eos', '--json'];
    const a = JSON.parse(runKb(args).stdout);
    const b = JSON.parse(runKb(args).stdout);
    expect(a.promptIds.length).toBeGreaterThan(1);
    expect(a.outputIds).toEqual(b.outputIds);
  });

  it('prints the text, the ids and the timings', () => {
    const run = runKb(['generate', '--prompt', 'Hello', '--max-new-tokens', '3', '--backend', 'sim', '--ignore-eos']);
    expect(run.code).toBe(0);
    // The prompt as words, as a user types it first: the same request.
    const words = runKb(['generate', 'The', 'KV cache', '--max-new-tokens', '3', '--json']);
    expect(words.code, words.stderr).toBe(0);
    expect(JSON.parse(words.stdout).promptIds).toEqual(JSON.parse(runKb(['generate', '--prompt', 'The KV cache', '--max-new-tokens', '3', '--json']).stdout).promptIds);
    expect(runKb(['generate', 'Hi', '--prompt', 'Hi']).stderr).toBe('kb: give the prompt once: as words or as --prompt TEXT\n');
    expect(run.stdout).toMatch(/prompt ids \(1\): 15496/);
    expect(run.stdout).toMatch(/output ids \(3\): \d+, \d+, \d+/);
    expect(run.stdout).toMatch(/TTFT [\d.]+ ms {2}TPOT [\d.]+ ms\/token/);
  });

  it('runs a Hugging Face weights folder, which needs token ids when its vocabulary is not GPT-2\'s', () => {
    const config: ModelConfig = { name: 'small', vocabSize: 64, nCtx: 32, nEmbd: 16, nLayer: 1, nHead: 2, layerNormEps: 1e-5 };
    const dir = tempDir('kb-weights-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'gpt2', vocab_size: 64, n_positions: 32, n_embd: 16, n_layer: 1, n_head: 2 }));
    writeSafetensorsWeights(join(dir, 'model.safetensors'), config, syntheticWeights(config, 1), 'F16');
    const run = runKb(['generate', '--weights', dir, '--prompt-ids', '1,2,3', '--max-new-tokens', '4', '--json']);
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout);
    expect(result.outputIds).toHaveLength(4);
    expect(result.outputIds.every((id: number) => id < 64)).toBe(true);
    expect(result.weights).toMatch(/model\.safetensors$/);
    // No tokenizer for this vocabulary: no text, and null says so ('' read as nothing generated).
    expect(result).toMatchObject({ vocabSize: 64, text: null });
    expect(runKb(['generate', '--weights', dir, '--prompt', 'hi']).stderr).toMatch(/--prompt needs GPT-2's vocabulary/);
    // The output began with two empty lines and no word why: it says so where the text would be.
    const shown = runKb(['generate', '--weights', dir, '--prompt-ids', '1,2,3', '--max-new-tokens', '4'], { env: { COLUMNS: '400' } });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.split('\n')[0]).toBe("(no text: this model's vocabulary (64 tokens) is not GPT-2's (50257), the only one kb can decode; its tokens are the output ids below)");
    expect(shown.stdout).toMatch(/^output ids \(4\): \d+, \d+, \d+, \d+$/m);
  });

  it('says the sim\'s tokens are not language also with --weights, whose values the sim never reads', () => {
    const config: ModelConfig = { name: 'small', vocabSize: 50257, nCtx: 32, nEmbd: 16, nLayer: 1, nHead: 2, layerNormEps: 1e-5 };
    const dir = tempDir('kb-weights-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'gpt2', vocab_size: 50257, n_positions: 32, n_embd: 16, n_layer: 1, n_head: 2 }));
    writeSafetensorsWeights(join(dir, 'model.safetensors'), config, syntheticWeights(config, 1), 'F16');
    const run = runKb(['generate', 'Hello', '--weights', dir, '--backend', 'sim', '--max-new-tokens', '3', '--ignore-eos'], { env: { COLUMNS: '400' } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^model: kb-weights-\S+, no weights \(sim: shapes only\)$/m);
    expect(run.stdout.split('\n')[1]).toMatch(/^\(sim backend: a cost model times each step and no weights exist, so the tokens are not language/);
  });

  it('Ctrl-C stops the generation and prints what it generated so far, with its timings; exit 130', async () => {
    // One thread, 1023 tokens: seconds of decoding (~7 s here), under way well before the interrupt.
    const { child, done } = spawnKb(['generate', '--prompt-ids', '1', '--threads', '1', '--max-new-tokens', '1023', '--ignore-eos', '--json']);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    child.kill('SIGINT');
    const run = await done;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toBe('\nkb: stopping; what was generated so far follows (Ctrl-C again: quit at once)\n');
    const result = JSON.parse(run.stdout);
    expect(result.finishReason).toBe('aborted');
    expect(result.outputIds.length).toBeGreaterThan(1);
    expect(result.outputIds.length).toBeLessThan(1023);
    expect(result.timings.ttftMs).toBeGreaterThan(0);
    expect(result.timings.tpotMs).toBeGreaterThan(0);
    // Measured up to the last token generated.
    expect(result.timings.latencyMs).toBeCloseTo(result.timings.ttftMs + result.timings.tpotMs * (result.outputIds.length - 1), 6);
  }, 60_000);

  it('names the valid models when the model is unknown', () => {
    const run = runKb(['generate', '--model', 'gpt9', '--prompt-ids', '1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('kb: unknown model "gpt9"; known models: gpt2-tiny, gpt2, gpt2-medium\n');
  });

  it('refuses a prompt longer than the context', () => {
    const ids = Array.from({ length: 1025 }, () => '1').join(',');
    const run = runKb(['generate', '--prompt-ids', ids]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the prompt has 1025 tokens; gpt2-tiny's context is 1024/);
  });

  it('refuses bad flags with one line each', () => {
    expect(runKb(['generate', '--max-new-tokens', '3']).stderr).toMatch(/exactly one of a prompt \(kb generate "TEXT", or --prompt TEXT\) or --prompt-ids/);
    expect(runKb(['generate', '--prompt-ids', '1,x']).stderr).toMatch(/--prompt-ids must be comma-separated/);
    expect(runKb(['generate', '--prompt-ids', '1', '--top-p', '0']).stderr).toMatch(/--top-p must be a decimal number in \(0, 1\]/);
    // Number() read 0x10 as 16 (and 1e1 as 10): a number flag takes decimal digits only.
    expect(runKb(['generate', '--prompt-ids', '1', '--temperature', '0x10']).stderr).toBe('kb: --temperature must be a decimal number >= 0 (got 0x10)\n');
    expect(runKb(['generate', '--prompt-ids', '1', '--max-new-tokens', '1e1']).stderr).toBe('kb: --max-new-tokens must be an integer >= 1 (got 1e1)\n');
    // Both said "<path>/config.json: not found".
    const file = join(tempDir('kb-weights-'), 'a-file');
    writeFileSync(file, 'x');
    expect(runKb(['generate', '--weights', file, '--prompt-ids', '1']).stderr).toBe(`kb: ${file}: is a file, not a folder (a weights folder holds config.json and model.safetensors)\n`);
    expect(runKb(['generate', '--weights', `${file}-gone`, '--prompt-ids', '1']).stderr).toBe(`kb: ${file}-gone: no such folder (a weights folder holds config.json and model.safetensors)\n`);
    // --threads was taken and ignored where there are no cpu threads.
    expect(runKb(['generate', 'x', '--backend', 'sim', '--threads', '4']).stderr).toBe("kb: --threads 4: the cpu backend's threads; it does nothing on sim (drop it, or use --backend cpu)\n");
    expect(runKb(['generate', 'x', '--backend', 'webgpu', '--threads', '4']).stderr).toBe("kb: --threads 4: the cpu backend's threads; it does nothing on webgpu (drop it, or use --backend cpu)\n");
    expect(runKb(['generate', '--prompt-ids', '99999']).stderr).toMatch(/99999 is not a token id of gpt2-tiny/);
    // An id past 2^53 was named as the float it rounds to (1e+23), not as typed.
    expect(runKb(['generate', '--prompt-ids', '5,99999999999999999999999']).stderr).toBe('kb: --prompt-ids: 99999999999999999999999 is not a token id (no vocabulary is that large)\n');
    // The draws hash the seed as 32 bits: 4294967296 drew what 0 draws.
    expect(runKb(['generate', '--prompt-ids', '1', '--seed', '4294967296']).stderr).toBe('kb: --seed must be an integer from 0 to 4294967295 (got 4294967296)\n');
  });
});
