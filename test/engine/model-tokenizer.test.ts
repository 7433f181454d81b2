import { describe, expect, it } from 'vitest';
import { gpt2Tokenizer } from '../../src/engine/model/tokenizer.ts';

describe('GPT-2 tokenizer', () => {
  it('round-trips English text', () => {
    const text = 'Paged attention keeps the KV cache in fixed-size blocks, so memory is not wasted.\nTTFT p95 < 700 ms!';
    const ids = gpt2Tokenizer.encode(text);
    expect(gpt2Tokenizer.decode(ids)).toBe(text);
    expect(ids.every((id) => id >= 0 && id < gpt2Tokenizer.vocabSize)).toBe(true);
  });

  it('uses GPT-2 ids', () => {
    expect(gpt2Tokenizer.encode('Hello world')).toEqual([15496, 995]);
    expect(gpt2Tokenizer.vocabSize).toBe(50257);
    expect(gpt2Tokenizer.decode([gpt2Tokenizer.eosTokenId])).toBe('<|endoftext|>');
  });

  it('treats a literal <|endoftext|> in a prompt as text', () => {
    expect(gpt2Tokenizer.encode('a <|endoftext|>')).not.toContain(gpt2Tokenizer.eosTokenId);
  });
});
