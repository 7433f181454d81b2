import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Deque } from '../../src/engine/core/deque.ts';

type Op = { op: 'push'; value: number } | { op: 'unshift'; value: number } | { op: 'shift' } | { op: 'remove'; index: number };

const ops: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    fc.record({ op: fc.constant('push' as const), value: fc.integer() }),
    fc.record({ op: fc.constant('unshift' as const), value: fc.integer() }),
    fc.record({ op: fc.constant('shift' as const) }),
    fc.record({ op: fc.constant('remove' as const), index: fc.nat(40) }),
  ),
  { maxLength: 300 },
);

describe('Deque', () => {
  it('behaves as an array under any mix of push, unshift, shift and removal (across growth and wrap-around)', () => {
    fc.assert(
      fc.property(ops, (list) => {
        const deque = new Deque<number>();
        const model: number[] = [];
        for (const step of list) {
          if (step.op === 'push') {
            deque.push(step.value);
            model.push(step.value);
          } else if (step.op === 'unshift') {
            deque.unshift(step.value);
            model.unshift(step.value);
          } else if (step.op === 'shift') {
            expect(deque.shift()).toBe(model.shift());
          } else {
            deque.removeAt(step.index);
            if (step.index < model.length) model.splice(step.index, 1);
          }
          expect(deque.length).toBe(model.length);
          expect(deque.at(0)).toBe(model[0]);
        }
        expect([...deque]).toEqual(model);
        for (const value of model) expect(deque.indexOf(value)).toBe(model.indexOf(value));
        expect(deque.at(model.length)).toBeUndefined();
        expect(deque.at(-1)).toBeUndefined();
      }),
    );
  });
});
