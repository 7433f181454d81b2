import { describe, expect, it } from 'vitest';
import { Int32Chunks } from '../../src/engine/int32-chunks.ts';

describe('Int32Arrays carved out of shared chunks', () => {
  it('are zero-filled, of the length asked, and never share an element', () => {
    const chunks = new Int32Chunks(64);
    const views = [3, 8, 1, 5, 8, 8, 2, 7, 8, 8, 8, 4].map((n) => chunks.take(n));
    views.forEach((view, i) => {
      expect(view.length).toBe([3, 8, 1, 5, 8, 8, 2, 7, 8, 8, 8, 4][i]);
      expect([...view].every((v) => v === 0)).toBe(true);
      view.fill(i + 1);
    });
    // Every view still holds what was written into it: none overlaps another.
    views.forEach((view, i) => expect([...view].every((v) => v === i + 1)).toBe(true));
  });

  it('give an array past an eighth of a chunk a buffer of its own', () => {
    const chunks = new Int32Chunks(64);
    const small = chunks.take(8);
    const large = chunks.take(9);
    expect(large.buffer).not.toBe(small.buffer);
    expect(large.byteOffset).toBe(0);
    expect(large.buffer.byteLength).toBe(9 * 4);
  });

  it('start a new chunk when the current one cannot hold the next array whole', () => {
    const chunks = new Int32Chunks(16);
    const a = chunks.take(2);
    const rest = Array.from({ length: 7 }, () => chunks.take(2));
    const next = chunks.take(2);
    expect(rest.every((v) => v.buffer === a.buffer)).toBe(true);
    expect(next.buffer).not.toBe(a.buffer);
  });
});
