// GPT-2's byte-level BPE (OpenAI's r50k_base ranks) from the gpt-tokenizer package.

import { decode as bpeDecode, encode as bpeEncode, vocabularySize } from 'gpt-tokenizer/encoding/r50k_base';

export interface Tokenizer {
  readonly vocabSize: number;
  /** `<|endoftext|>`, which GPT-2 uses both to separate documents and to end a generation. */
  readonly eosTokenId: number;
  encode(text: string): number[];
  decode(ids: Iterable<number>): string;
}

const EOS_TOKEN_ID = 50256;
// A prompt that happens to contain "<|endoftext|>" is encoded as plain text, not refused.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export const gpt2Tokenizer: Tokenizer = {
  vocabSize: vocabularySize,
  eosTokenId: EOS_TOKEN_ID,
  encode: (text) => bpeEncode(text, PLAIN_TEXT),
  decode: (ids) => bpeDecode(ids),
};
