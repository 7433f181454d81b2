// kb serve over a Hugging Face weights folder whose vocabulary is not GPT-2's: token ids in,
// usage counts out, and text refused with a 400 that says why.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelConfig } from '../../src/engine/model/model-config.ts';
import { writeSafetensorsWeights } from '../../src/engine/model/safetensors.ts';
import { syntheticWeights } from '../../src/engine/model/weights.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { postJson, startServe, type ServeFixture } from './serve-fixture.ts';

let serve: ServeFixture;

beforeAll(async () => {
  const config: ModelConfig = { name: 'small', vocabSize: 64, nCtx: 32, nEmbd: 16, nLayer: 1, nHead: 2, layerNormEps: 1e-5 };
  const dir = tempDir('kb-weights-');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'gpt2', vocab_size: 64, n_positions: 32, n_embd: 16, n_layer: 1, n_head: 2 }));
  writeSafetensorsWeights(join(dir, 'model.safetensors'), config, syntheticWeights(config, 1), 'F16');
  serve = await startServe({ weightsDir: dir });
});
afterAll(async () => {
  await serve?.close();
});

describe('kb serve with a non-GPT-2 vocabulary', () => {
  it('completes token-id prompts and counts the tokens', async () => {
    const res = await postJson(`${serve.url}/v1/completions`, { prompt: [1, 2, 3], max_tokens: 4 });
    expect(res.status).toBe(200);
    expect(res.json.usage).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    const models = await fetch(`${serve.url}/v1/models`).then((r) => r.json() as Promise<{ data: { max_model_len: number }[] }>);
    expect(models.data[0].max_model_len).toBe(32);
  });

  it('refuses text, ids outside the vocabulary and the context, naming each', async () => {
    const text = await postJson(`${serve.url}/v1/completions`, { prompt: 'hello', max_tokens: 2 });
    expect(text.status).toBe(400);
    expect(text.json.error.message).toBe("prompt: text needs GPT-2's vocabulary; this model has 64 tokens, so send token ids");
    const id = await postJson(`${serve.url}/v1/completions`, { prompt: [1, 64], max_tokens: 2 });
    expect(id.json.error.message).toBe('prompt token 1 (64) is not an id in [0, 64)');
    const long = await postJson(`${serve.url}/v1/completions`, { prompt: [1, 2, 3], max_tokens: 30 });
    expect(long.json.error.message).toMatch(/maximum context length is 32 tokens/);
    const chat = await postJson(`${serve.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.json.error.param).toBe('messages');
  });
});
