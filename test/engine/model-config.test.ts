import { describe, expect, it } from 'vitest';
import { loadHfConfig, namedConfig, parameterCount } from '../../src/engine/model/model-config.ts';

const hfGpt2 = {
  activation_function: 'gelu_new',
  model_type: 'gpt2',
  n_ctx: 1024,
  n_embd: 768,
  n_head: 12,
  n_layer: 12,
  n_positions: 1024,
  layer_norm_epsilon: 1e-5,
  vocab_size: 50257,
};

describe('model config', () => {
  it('names gpt2-tiny, gpt2 and gpt2-medium', () => {
    expect(parameterCount(namedConfig('gpt2'))).toBe(124_439_808);
    expect(parameterCount(namedConfig('gpt2-medium'))).toBe(354_823_168);
    expect(namedConfig('gpt2-tiny').vocabSize).toBe(50257);
  });

  it('refuses an unknown model, listing the known ones', () => {
    expect(() => namedConfig('gpt5')).toThrow(/unknown model "gpt5"; known models: gpt2-tiny, gpt2, gpt2-medium/);
  });

  it('reads a Hugging Face GPT-2 config.json', () => {
    const config = loadHfConfig(JSON.stringify(hfGpt2), 'gpt2-hf');
    expect(config).toEqual({ ...namedConfig('gpt2'), name: 'gpt2-hf' });
  });

  it('says which field is wrong', () => {
    expect(() => loadHfConfig({ ...hfGpt2, n_head: 7 })).toThrow('config.json: n_embd 768 is not a multiple of n_head 7');
    expect(() => loadHfConfig({ ...hfGpt2, n_layer: undefined })).toThrow(/missing numeric field "n_layer"/);
    expect(() => loadHfConfig({ ...hfGpt2, model_type: 'llama' })).toThrow(/model_type is "llama"/);
    expect(() => loadHfConfig({ ...hfGpt2, vocab_size: 0 })).toThrow('config.json: vocab_size must be a whole number from 1 to 1048576, got 0');
    expect(() => loadHfConfig([1, 2])).toThrow(/expected a JSON object/);
  });
});
