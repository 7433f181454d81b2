import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { barrier, createControl, markFailed, resetWork, splitRange, takeWork } from '../../src/engine/backend/cpu/thread-sync.ts';

describe('cpu thread sync', () => {
  it('splitRange covers [0, total) in order, aligned, without overlap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 8 }), fc.constantFrom(1, 4), (total, threads, align) => {
        let next = 0;
        for (let tid = 0; tid < threads; tid++) {
          const [start, end] = splitRange(total, tid, threads, align);
          expect(start).toBe(next);
          expect(end).toBeGreaterThanOrEqual(start);
          if (end < total) expect(end % align).toBe(0);
          next = end;
        }
        expect(next).toBe(total);
      }),
    );
  });

  it('a thread waiting at a barrier leaves with an error once another thread failed', () => {
    const ctl = createControl();
    markFailed(ctl);
    expect(() => barrier(ctl, 2)).toThrow(/another thread of the forward pass failed/);
  });

  it('a barrier of one thread never waits', () => {
    expect(() => barrier(createControl(), 1)).not.toThrow();
  });

  it('work counters hand out each chunk once, per counter, until reset', () => {
    const ctl = createControl(3);
    expect([takeWork(ctl, 0), takeWork(ctl, 0), takeWork(ctl, 2), takeWork(ctl, 0)]).toEqual([0, 1, 0, 2]);
    markFailed(ctl); // the header is not touched by a reset, nor are the counters by the header
    resetWork(ctl);
    expect([takeWork(ctl, 0), takeWork(ctl, 1), takeWork(ctl, 2)]).toEqual([0, 0, 0]);
    expect(() => barrier(ctl, 2)).toThrow(/failed/);
  });
});
