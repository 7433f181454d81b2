// GPT-2's vocabulary in the form llama.cpp's BPE tokenizer loads from a GGUF file: token
// strings in GPT-2's byte-to-unicode alphabet, a type per token, and the merge list. Built from
// the r50k_base ranks that ship with the gpt-tokenizer package (the same table kb's tokenizer
// uses), where a token's rank is its GPT-2 id.
//
// The ranks hold no merge list, so it is rebuilt the way tiktoken-to-Hugging-Face converters do:
// token r (r >= 256) is the merge of the two pieces byte-level BPE reaches on its own bytes when
// only merges of rank below r may be applied.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export const GPT2_EOS_ID = 50256;
const EOS_TEXT = '<|endoftext|>';

/** llama.cpp's token types (llama_token_type). */
export const TOKEN_TYPE = { NORMAL: 1, CONTROL: 3 } as const;

export interface Gpt2Vocab {
  /** Index = token id. */
  tokens: string[];
  tokenTypes: Int32Array;
  /** "left right" pairs in rank order: merge i makes token 256 + i. */
  merges: string[];
}

/**
 * GPT-2's map from bytes to printable characters: printable Latin-1 bytes map to themselves,
 * the rest to code points from 256 up, so every byte string is a visible, whitespace-free string.
 */
export function byteToUnicode(): string[] {
  const printable = (b: number): boolean => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const table: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) table.push(String.fromCodePoint(printable(b) ? b : next++));
  return table;
}

/** The base64 token bytes and ranks of r50k_base (50256 entries; <|endoftext|> is separate). */
export function readR50kRanks(): Buffer[] {
  const require = createRequire(import.meta.url);
  const path = require.resolve('gpt-tokenizer/data/r50k_base.tiktoken');
  const byRank: Buffer[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const [b64, rank] = line.split(' ');
    byRank[Number(rank)] = Buffer.from(b64, 'base64');
  }
  for (let r = 0; r < byRank.length; r++) {
    if (!byRank[r]) throw new Error(`r50k_base.tiktoken: rank ${r} missing`);
  }
  return byRank;
}

/** Splits `bytes` by byte-level BPE, merging the lowest-ranked pair first, only ranks < maxRank. */
function bpeParts(bytes: Buffer, rankOf: Map<string, number>, maxRank: number): string[] {
  let parts = Array.from(bytes, (b) => String.fromCharCode(b));
  for (;;) {
    let best = -1;
    let bestRank = maxRank;
    for (let i = 0; i + 1 < parts.length; i++) {
      const rank = rankOf.get(parts[i] + parts[i + 1]);
      if (rank !== undefined && rank < bestRank) {
        bestRank = rank;
        best = i;
      }
    }
    if (best < 0) return parts;
    parts = [...parts.slice(0, best), parts[best] + parts[best + 1], ...parts.slice(best + 2)];
  }
}

export function gpt2Vocab(): Gpt2Vocab {
  const byRank = readR50kRanks();
  const unicode = byteToUnicode();
  // Keys are the token bytes as a latin1 string (one char per byte).
  const rankOf = new Map(byRank.map((bytes, rank) => [bytes.toString('latin1'), rank]));
  const show = (latin1: string): string => Array.from(latin1, (ch) => unicode[ch.charCodeAt(0)]).join('');

  const tokens = byRank.map((bytes) => show(bytes.toString('latin1')));
  tokens.push(EOS_TEXT);
  const tokenTypes = new Int32Array(tokens.length).fill(TOKEN_TYPE.NORMAL);
  tokenTypes[GPT2_EOS_ID] = TOKEN_TYPE.CONTROL;

  const merges: string[] = [];
  for (let rank = 256; rank < byRank.length; rank++) {
    const parts = bpeParts(byRank[rank], rankOf, rank);
    if (parts.length !== 2) throw new Error(`r50k_base: token ${rank} does not split into one merge (got ${parts.length} pieces)`);
    merges.push(`${show(parts[0])} ${show(parts[1])}`);
  }
  return { tokens, tokenTypes, merges };
}
