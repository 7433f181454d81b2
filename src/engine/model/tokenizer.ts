// GPT-2's byte-level BPE (OpenAI's r50k_base ranks) from the gpt-tokenizer package.

import { createRequire } from 'node:module';

type R50kBase = typeof import('gpt-tokenizer/encoding/r50k_base');
let r50kBase: R50kBase | undefined;

/**
 * The package builds its 50,000 ranks when loaded (~70 ms), so it is loaded on the first use,
 * not by every importer of the engine (kb's start-up bundle, where `require` exists, included).
 */
function bpe(): R50kBase {
  r50kBase ??= (typeof require === 'function' ? require('gpt-tokenizer/encoding/r50k_base') : createRequire(import.meta.url)('gpt-tokenizer/encoding/r50k_base')) as R50kBase;
  return r50kBase;
}

export interface Tokenizer {
  readonly vocabSize: number;
  /** `<|endoftext|>`, which GPT-2 uses both to separate documents and to end a generation. */
  readonly eosTokenId: number;
  encode(text: string): number[];
  decode(ids: Iterable<number>): string;
}

const EOS_TOKEN_ID = 50256;
/** GPT-2's token for the single byte 0xFF (its byte tokens follow bytes_to_unicode's order). */
const INVALID_BYTE_TOKEN = 187;
// A prompt that happens to contain "<|endoftext|>" is encoded as plain text, not refused.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export const gpt2Tokenizer: Tokenizer = {
  get vocabSize() {
    return bpe().vocabularySize;
  },
  eosTokenId: EOS_TOKEN_ID,
  encode: (text) => bpe().encode(text, PLAIN_TEXT),
  decode: (ids) => {
    const { decode: bpeDecode } = bpe();
    const text = bpeDecode(ids);
    // gpt-tokenizer decodes through one shared streaming TextDecoder that it never flushes, so
    // the bytes of a character cut at the end of `ids` would come out at the start of the
    // next call (even another request's). Push the byte 0xFF through: it is never valid
    // UTF-8, so the decoder gives U+FFFD for it and, ahead of it, one U+FFFD for any cut
    // character it held (what a one-shot decode gives), and holds nothing after.
    const flushed = bpeDecode([INVALID_BYTE_TOKEN]);
    return text + flushed.slice(0, -1);
  },
};
