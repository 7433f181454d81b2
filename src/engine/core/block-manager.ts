// The paged KV pool's bookkeeping: which blocks are free, who holds each one (reference
// counts), and the prefix cache. K/V values live in the backend; this file only hands out
// block numbers. Free blocks wait in one queue: never-hashed blocks at the front (handed out
// first), hashed ones at the back in the order they were freed, so the least recently used
// cached block is the one evicted when a fresh block is needed.
import type { Sequence } from './sequence.ts';
import { NO_HASH, blockHash } from './block-hash.ts';

const NONE = -1;

export class BlockManager {
  readonly numBlocks: number;
  readonly blockSize: number;
  readonly prefixCaching: boolean;
  private readonly refCount: Int32Array;
  private readonly hashes: Float64Array;
  private readonly blockTokens: Int32Array;
  private readonly hashToBlock = new Map<number, number>();
  // The free queue, a doubly linked list threaded through two arrays (O(1) removal of a
  // cached block from its middle when a prefix hit revives it).
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private head = NONE;
  private tail = NONE;
  private free = 0;
  private peakUsed = 0;

  constructor(numBlocks: number, blockSize: number, prefixCaching = true) {
    this.numBlocks = numBlocks;
    this.blockSize = blockSize;
    this.prefixCaching = prefixCaching;
    this.refCount = new Int32Array(numBlocks);
    this.hashes = new Float64Array(numBlocks).fill(NO_HASH);
    this.blockTokens = new Int32Array(numBlocks * blockSize);
    this.prev = new Int32Array(numBlocks);
    this.next = new Int32Array(numBlocks);
    for (let b = 0; b < numBlocks; b++) this.pushBack(b);
  }

  get numFree(): number {
    return this.free;
  }

  blocksFor(numTokens: number): number {
    return Math.ceil(numTokens / this.blockSize);
  }

  refs(block: number): number {
    return this.refCount[block];
  }

  /**
   * Cached blocks holding a prefix of `seq`'s tokens. Never the block of the last token:
   * it must be computed again to produce the logits the next token is sampled from.
   */
  matchPrefix(seq: Sequence): number[] {
    const hits: number[] = [];
    if (!this.prefixCaching) return hits;
    const bs = this.blockSize;
    let hash = NO_HASH;
    for (let i = 0; i < Math.floor((seq.numTokens - 1) / bs); i++) {
      hash = blockHash(hash, seq.tokens, i * bs, (i + 1) * bs);
      const block = this.hashToBlock.get(hash);
      if (block === undefined || !this.holdsTokens(block, seq.tokens, i * bs)) break;
      hits.push(block);
    }
    return hits;
  }

  /** Whether `seq` can take `hits` and grow to cover `numTokens` tokens. */
  canAllocate(hits: readonly number[], numTokens: number): boolean {
    let revived = 0;
    for (const block of hits) if (this.refCount[block] === 0) revived++;
    return this.free >= revived + Math.max(0, this.blocksFor(numTokens) - hits.length);
  }

  /** Gives a sequence holding no blocks its cached prefix; returns the tokens it skips. */
  takePrefix(seq: Sequence, hits: readonly number[]): number {
    for (const block of hits) {
      if (this.refCount[block] === 0) this.unlinkFree(block);
      this.refCount[block]++;
      seq.blockTable.push(block);
    }
    seq.numComputed = hits.length * this.blockSize;
    return seq.numComputed;
  }

  /** Adds blocks so `seq` covers `numTokens` tokens; all or nothing. */
  grow(seq: Sequence, numTokens: number): boolean {
    const needed = this.blocksFor(numTokens) - seq.blockTable.length;
    if (needed > this.free) return false;
    for (let i = 0; i < needed; i++) seq.blockTable.push(this.allocate());
    return true;
  }

  /** Drops the sequence's hold on its blocks, last block first (so the tail is evicted first). */
  release(seq: Sequence): void {
    for (let i = seq.blockTable.length - 1; i >= 0; i--) this.decRef(seq.blockTable[i]);
    seq.blockTable.length = 0;
    seq.numComputed = 0;
  }

  /** Records the keys of blocks that became full and computed since `computedBefore`. */
  commit(seq: Sequence, computedBefore: number): void {
    if (!this.prefixCaching) return;
    const bs = this.blockSize;
    const first = Math.floor(computedBefore / bs);
    const end = Math.floor(seq.numComputed / bs);
    let hash = first > 0 ? this.hashes[seq.blockTable[first - 1]] : NO_HASH;
    if (first > 0 && hash === NO_HASH) {
      // The parent lost its key (the cache was cleared while it was held): rebuild the chain.
      for (let i = 0; i < first; i++) hash = blockHash(hash, seq.tokens, i * bs, (i + 1) * bs);
    }
    for (let i = first; i < end; i++) {
      const block = seq.blockTable[i];
      if (this.hashes[block] === NO_HASH) {
        hash = blockHash(hash, seq.tokens, i * bs, (i + 1) * bs);
        this.hashes[block] = hash;
        this.blockTokens.set(seq.tokens.subarray(i * bs, (i + 1) * bs), block * bs);
        this.hashToBlock.set(hash, block);
      } else {
        hash = this.hashes[block]; // a shared block from a prefix hit, already keyed
      }
    }
  }

  /**
   * The most blocks in use at once since the previous call; the next call's peak starts from
   * the blocks in use now. Kept by the pool because only it sees a step's passing high point:
   * scheduling can fill it, then free a preempted sequence's blocks, before the step runs.
   */
  takePeakUsed(): number {
    const peak = this.peakUsed;
    this.peakUsed = this.numBlocks - this.free;
    return peak;
  }

  /** Free blocks that still hold a reusable prefix (counted when asked: only statistics ask). */
  cachedFreeBlocks(): number {
    let cached = 0;
    for (let b = 0; b < this.numBlocks; b++) if (this.refCount[b] === 0 && this.hashes[b] !== NO_HASH) cached++;
    return cached;
  }

  /** Forgets every cached prefix (benchmarks call it between runs). Held blocks keep working. */
  clearPrefixCache(): void {
    this.hashes.fill(NO_HASH);
    this.hashToBlock.clear();
  }

  private holdsTokens(block: number, tokens: Int32Array, start: number): boolean {
    const base = block * this.blockSize;
    for (let j = 0; j < this.blockSize; j++) if (this.blockTokens[base + j] !== tokens[start + j]) return false;
    return true;
  }

  private allocate(): number {
    const block = this.head;
    if (block === NONE) throw new Error('KV pool exhausted (the scheduler should have checked)');
    this.unlinkFree(block);
    const hash = this.hashes[block];
    if (hash !== NO_HASH) {
      // Evicting a cached prefix: the block loses its key before it is overwritten.
      if (this.hashToBlock.get(hash) === block) this.hashToBlock.delete(hash);
      this.hashes[block] = NO_HASH;
    }
    this.refCount[block] = 1;
    return block;
  }

  private decRef(block: number): void {
    if (this.refCount[block] <= 0) throw new Error(`block ${block} released more often than taken`);
    if (--this.refCount[block] > 0) return;
    if (this.hashes[block] === NO_HASH) this.pushFront(block);
    else this.pushBack(block);
  }

  private pushBack(block: number): void {
    this.prev[block] = this.tail;
    this.next[block] = NONE;
    if (this.tail === NONE) this.head = block;
    else this.next[this.tail] = block;
    this.tail = block;
    this.free++;
  }

  private pushFront(block: number): void {
    this.next[block] = this.head;
    this.prev[block] = NONE;
    if (this.head === NONE) this.tail = block;
    else this.prev[this.head] = block;
    this.head = block;
    this.free++;
  }

  private unlinkFree(block: number): void {
    const p = this.prev[block];
    const n = this.next[block];
    if (p === NONE) this.head = n;
    else this.next[p] = n;
    if (n === NONE) this.tail = p;
    else this.prev[n] = p;
    this.free--;
    this.peakUsed = Math.max(this.peakUsed, this.numBlocks - this.free);
  }
}
