import { describe, expect, it } from 'vitest';
import { clientTurns } from '../../src/engine/host/client-turn.ts';

// A client reacting through a chain of promises, as the benchmark runner and request streams do.
async function chain(depth: number, log: string[]): Promise<void> {
  for (let i = 0; i < depth; i++) await Promise.resolve();
  log.push('client');
}

describe('the sim loop handing the turn to its clients', () => {
  it('lets a client finish a long chain of promises before the turn ends, within the budget', async () => {
    const turn = clientTurns(Infinity);
    await turn(); // the first turn is a full one
    const log: string[] = [];
    void chain(200, log);
    await turn();
    log.push('loop');
    expect(log).toEqual(['client', 'loop']);
  });

  it('turns the event loop on the first turn and once the budget is spent', async () => {
    const turn = clientTurns(0);
    for (let i = 0; i < 3; i++) {
      const log: string[] = [];
      setImmediate(() => log.push('immediate'));
      await turn();
      log.push('loop');
      expect(log).toEqual(['immediate', 'loop']);
    }
  });

  it('does not wait for the event loop within the budget', async () => {
    const turn = clientTurns(Infinity);
    await turn();
    const log: string[] = [];
    setImmediate(() => log.push('immediate'));
    await turn();
    log.push('loop');
    expect(log).toEqual(['loop']);
  });
});
