// The text of single tokens, kept once decoded. Streaming turns every output token into text
// on the HTTP thread, and a decode through GPT-2's tokenizer is two passes of its UTF-8
// decoder (the second flushes it: engine/model/tokenizer.ts), a few µs each time, ~10% of the
// HTTP thread's work in a burst. A decode depends only on its ids, and a server streams the
// same few thousand tokens over and over, so each token's text is decoded once.
import type { Tokenizer } from '../engine/index.ts';

export function withTokenTextCache(tokenizer: Tokenizer): Tokenizer {
  const vocabSize = tokenizer.vocabSize;
  const texts: (string | undefined)[] = new Array(vocabSize);
  return {
    vocabSize,
    eosTokenId: tokenizer.eosTokenId,
    encode: (text) => tokenizer.encode(text),
    decode(ids) {
      if (Array.isArray(ids) && ids.length === 1) {
        const id = ids[0];
        if (Number.isInteger(id) && id >= 0 && id < vocabSize) return (texts[id] ??= tokenizer.decode(ids));
      }
      return tokenizer.decode(ids);
    },
  };
}
