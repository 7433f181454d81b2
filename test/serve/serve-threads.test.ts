// kb serve leaves one core in eight to its HTTP side; below 8 cores the engine keeps them all.
import { describe, expect, it } from 'vitest';
import { defaultServeThreads } from '../../src/serve/serve-engine-options.ts';

describe('defaultServeThreads', () => {
  it('keeps every core below 8 and leaves one in eight from 8 up', () => {
    expect([1, 2, 4, 7, 8, 15, 16, 32, 64].map(defaultServeThreads)).toEqual([1, 2, 4, 7, 7, 14, 14, 28, 56]);
  });
});
