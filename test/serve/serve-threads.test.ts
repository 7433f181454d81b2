// kb serve leaves one core in eight to its HTTP side; below 8 cores the engine keeps them all;
// with several API server threads, a core for each.
import { describe, expect, it } from 'vitest';
import { defaultApiServers, defaultServeThreads } from '../../src/serve/serve-engine-options.ts';

describe('defaultServeThreads', () => {
  it('keeps every core below 8 and leaves one in eight from 8 up', () => {
    expect([1, 2, 4, 7, 8, 15, 16, 32, 64].map((cores) => defaultServeThreads(cores))).toEqual([1, 2, 4, 7, 7, 14, 14, 28, 56]);
  });

  it('leaves a core to each of several API server threads, and one thread to the engine at least', () => {
    expect([2, 8, 16, 32].map((cores) => defaultServeThreads(cores, 4))).toEqual([1, 4, 12, 28]);
    expect(defaultServeThreads(16, 1)).toBe(14);
  });
});

describe('defaultApiServers', () => {
  it('gives a GPU engine one API server thread per four cores, up to four, and the cpu engine one', () => {
    expect([1, 2, 4, 8, 16, 64].map((cores) => defaultApiServers('webgpu', cores))).toEqual([1, 1, 1, 2, 4, 4]);
    expect([2, 16, 64].map((cores) => defaultApiServers('cpu', cores))).toEqual([1, 1, 1]);
  });
});
