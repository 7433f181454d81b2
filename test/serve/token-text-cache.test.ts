import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gpt2Tokenizer, type Tokenizer } from '../../src/engine/index.ts';
import { withTokenTextCache } from '../../src/serve/token-text-cache.ts';

describe('withTokenTextCache', () => {
  it('decodes exactly as the tokenizer does, one token or many (property)', () => {
    const cached = withTokenTextCache(gpt2Tokenizer);
    const id = fc.integer({ min: 0, max: gpt2Tokenizer.vocabSize - 1 });
    fc.assert(
      fc.property(fc.array(id, { minLength: 1, maxLength: 6 }), (ids) => {
        // Twice: the second single-token decode comes from the cache.
        for (const i of ids) expect(cached.decode([i])).toBe(gpt2Tokenizer.decode([i]));
        for (const i of ids) expect(cached.decode([i])).toBe(gpt2Tokenizer.decode([i]));
        expect(cached.decode(ids)).toBe(gpt2Tokenizer.decode(ids));
      }),
    );
    expect(cached.encode('The KV cache')).toEqual(gpt2Tokenizer.encode('The KV cache'));
    expect([cached.vocabSize, cached.eosTokenId]).toEqual([gpt2Tokenizer.vocabSize, gpt2Tokenizer.eosTokenId]);
  });

  it('decodes a single token once, and leaves ids outside the vocabulary to the tokenizer', () => {
    const calls: number[][] = [];
    const counting: Tokenizer = { ...gpt2Tokenizer, vocabSize: gpt2Tokenizer.vocabSize, decode: (ids) => (calls.push([...ids]), gpt2Tokenizer.decode(ids)) };
    const cached = withTokenTextCache(counting);
    cached.decode([464]);
    cached.decode([464]);
    cached.decode([464, 509]);
    const outside = gpt2Tokenizer.vocabSize + 5;
    for (let i = 0; i < 2; i++) {
      try {
        cached.decode([outside]);
      } catch {
        // the tokenizer's own answer to an unknown id, whatever it is
      }
    }
    expect(calls).toEqual([[464], [464, 509], [outside], [outside]]);
  });
});
