import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlockManager } from '../../src/engine/core/block-manager.ts';
import { Sequence } from '../../src/engine/core/sequence.ts';

const params = { temperature: 0, topK: 0, topP: 1, seed: 0, maxNewTokens: 1000, stopTokenIds: [], stopAfterTokens: Infinity };
let nextId = 0;
const seqOf = (tokens: number[], capacity = 512) => new Sequence(nextId++, tokens, params, Math.max(capacity, tokens.length));

/** Admits a sequence as the scheduler does: cached prefix, then blocks for the rest, then "computes" it. */
function admit(blocks: BlockManager, seq: Sequence): boolean {
  const hits = blocks.matchPrefix(seq);
  if (!blocks.canAllocate(hits, seq.numTokens)) return false;
  blocks.takePrefix(seq, hits);
  expect(blocks.grow(seq, seq.numTokens)).toBe(true);
  const before = seq.numComputed;
  seq.numComputed = seq.numTokens;
  blocks.commit(seq, before);
  return true;
}

/** The pool's bookkeeping agrees with who holds what. */
function audit(blocks: BlockManager, live: readonly Sequence[]): void {
  const holders = new Int32Array(blocks.numBlocks);
  for (const seq of live) {
    for (const block of seq.blockTable) holders[block]++;
    expect(seq.blockTable.length * blocks.blockSize).toBeGreaterThanOrEqual(seq.numComputed);
  }
  let free = 0;
  for (let b = 0; b < blocks.numBlocks; b++) {
    expect(blocks.refs(b)).toBe(holders[b]);
    if (holders[b] === 0) free++;
  }
  expect(blocks.numFree).toBe(free);
  expect(blocks.cachedFreeBlocks()).toBeLessThanOrEqual(free);
}

describe('BlockManager', () => {
  it('reuses the full blocks of a shared prefix and compares their tokens', () => {
    const blocks = new BlockManager(8, 4);
    const a = seqOf([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(admit(blocks, a)).toBe(true);
    const b = seqOf([1, 2, 3, 4, 5, 6, 7, 8, 10, 11]);
    const hits = blocks.matchPrefix(b);
    expect(hits).toEqual(a.blockTable.slice(0, 2));
    expect(blocks.takePrefix(b, hits)).toBe(8);
    expect(b.numComputed).toBe(8);
    expect(blocks.refs(a.blockTable[0])).toBe(2);
  });

  it('never serves the block holding the last token, so its logits get computed', () => {
    const blocks = new BlockManager(8, 4);
    const a = seqOf([1, 2, 3, 4, 5, 6, 7, 8]);
    admit(blocks, a);
    // The same 8 tokens again: both blocks are cached, but only the first may be reused.
    expect(blocks.matchPrefix(seqOf([1, 2, 3, 4, 5, 6, 7, 8]))).toEqual([a.blockTable[0]]);
  });

  it('keeps freed prefixes until their blocks are needed, evicting the least recently freed first', () => {
    const blocks = new BlockManager(4, 2);
    const a = seqOf([1, 2, 3]);
    const b = seqOf([5, 6, 7]);
    admit(blocks, a);
    admit(blocks, b);
    blocks.release(a);
    blocks.release(b);
    expect(blocks.cachedFreeBlocks()).toBe(2);
    expect(blocks.matchPrefix(seqOf([1, 2, 9]))).toHaveLength(1);
    // Two blocks needed: the never-hashed free blocks go first, the cache survives.
    const c = seqOf([8, 8, 8]);
    admit(blocks, c);
    expect(blocks.cachedFreeBlocks()).toBe(2);
    // One more block evicts the prefix freed first (a's), and it loses its key.
    const d = seqOf([9]);
    admit(blocks, d);
    expect(blocks.matchPrefix(seqOf([1, 2, 9]))).toEqual([]);
    expect(blocks.matchPrefix(seqOf([5, 6, 9]))).toHaveLength(1);
    audit(blocks, [c, d]);
  });

  it('does not share blocks with prefix caching off', () => {
    const blocks = new BlockManager(8, 2, false);
    const a = seqOf([1, 2, 3]);
    admit(blocks, a);
    expect(blocks.matchPrefix(seqOf([1, 2, 3]))).toEqual([]);
  });

  it('never leaks a block and keeps reference counts exact under random operations', () => {
    type Op =
      | { kind: 'admit'; prefix: number; length: number; salt: number }
      | { kind: 'append'; who: number; count: number }
      | { kind: 'free'; who: number }
      | { kind: 'clear' };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('admit' as const), prefix: fc.integer({ min: 0, max: 2 }), length: fc.integer({ min: 1, max: 20 }), salt: fc.integer({ min: 0, max: 3 }) }), weight: 4 },
      { arbitrary: fc.record({ kind: fc.constant('append' as const), who: fc.nat(), count: fc.integer({ min: 1, max: 6 }) }), weight: 3 },
      { arbitrary: fc.record({ kind: fc.constant('free' as const), who: fc.nat() }), weight: 3 },
      { arbitrary: fc.constant({ kind: 'clear' as const }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 }), fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 60 }), (numBlocks, blockSize, ops) => {
        const blocks = new BlockManager(numBlocks, blockSize);
        // What each pool slot holds: the token written there (the stand-in for its K/V).
        const content = new Map<number, number>();
        const write = (seq: Sequence, from: number) => {
          for (let pos = from; pos < seq.numComputed; pos++) {
            content.set(seq.blockTable[Math.floor(pos / blockSize)] * blockSize + (pos % blockSize), seq.tokens[pos]);
          }
        };
        const live: Sequence[] = [];
        for (const o of ops) {
          if (o.kind === 'admit') {
            // Three families of prompts, so prefixes repeat and the cache gets hits.
            const tokens = Array.from({ length: o.length }, (_, i) => (i < 8 ? o.prefix * 10 + (i % 3) : o.salt + i));
            const seq = seqOf(tokens);
            const hits = blocks.matchPrefix(seq);
            // A hit must hold exactly this prompt's tokens.
            hits.forEach((block, i) => {
              for (let j = 0; j < blockSize; j++) expect(content.get(block * blockSize + j)).toBe(tokens[i * blockSize + j]);
            });
            if (!blocks.canAllocate(hits, seq.numTokens)) continue;
            blocks.takePrefix(seq, hits);
            expect(blocks.grow(seq, seq.numTokens)).toBe(true);
            const before = seq.numComputed;
            seq.numComputed = seq.numTokens;
            write(seq, before);
            blocks.commit(seq, before);
            live.push(seq);
          } else if (o.kind === 'append' && live.length > 0) {
            const seq = live[o.who % live.length];
            if (seq.numTokens + o.count > seq.tokens.length) continue;
            for (let i = 0; i < o.count; i++) seq.append(7 + i);
            if (!blocks.grow(seq, seq.numTokens)) {
              seq.numTokens -= o.count;
              continue;
            }
            const before = seq.numComputed;
            seq.numComputed = seq.numTokens;
            write(seq, before);
            blocks.commit(seq, before);
          } else if (o.kind === 'free' && live.length > 0) {
            const [seq] = live.splice(o.who % live.length, 1);
            blocks.release(seq);
          } else if (o.kind === 'clear') {
            blocks.clearPrefixCache();
          }
          audit(blocks, live);
        }
        for (const seq of live.splice(0)) blocks.release(seq);
        audit(blocks, []);
        expect(blocks.numFree).toBe(blocks.numBlocks);
      }),
      { numRuns: 300 },
    );
  });
});
