// Parts packed on rows break between parts, and a row never ends with its separator ("Lab:
// batching · reproduced 2/2 · <1m ago ·" read as a part gone missing; found as a user).
import { describe, expect, it } from 'vitest';
import { packParts } from '../../src/ui/text/pack-parts.ts';

describe('packParts', () => {
  it('drops the separator where it breaks', () => {
    expect(packParts(['Lab: batching', 'reproduced 2/2', '<1m ago', 'throughput ratio = 1.85'], ' · ', 45)).toEqual([
      'Lab: batching · reproduced 2/2 · <1m ago',
      'throughput ratio = 1.85',
    ]);
    expect(packParts(['a', 'b'], ' · ', 80)).toEqual(['a · b']);
  });

  it('wraps a part wider than a row on its own', () => {
    expect(packParts(['short', 'a part that is much wider than the row'], ' · ', 14)).toEqual(['short', 'a part that is', 'much wider', 'than the row']);
  });
});
