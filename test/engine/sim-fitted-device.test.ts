// The sim on a fitted device: step times from the cost terms, the KV capacity from the
// profile's memory split, and the hop from submit to the scheduler.
import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/index.ts';
import type { DeviceSpec } from '../../src/engine/backend/sim/gpus.ts';

const device = (over: Partial<DeviceSpec> = {}): DeviceSpec => ({
  name: 'fitted-test',
  peakFlops: 0,
  bandwidth: 0,
  memoryBytes: 64 * 1024 ** 2,
  weightBytes: 16 * 1024 ** 2,
  reserveBytes: 0,
  dtypeBytes: 4,
  efficiency: 1,
  stepOverheadMs: 0,
  fitted: { stepMs: 2, tokenMs: 0.5, attendedMs: 0, sampledMs: 1, prefillPassMs: 3 },
  ...over,
});

describe('sim on a fitted device', () => {
  it('times each step by the terms: prefill 2 + 0.5 x 8 + 1 + 3 ms, then decode 2 + 0.5 + 1 ms', async () => {
    const engine = await createEngine({ backend: 'sim', deviceSpec: device(), prefixCaching: false });
    const result = await engine.submit({ promptIds: [1, 2, 3, 4, 5, 6, 7, 8], maxNewTokens: 3 }).done;
    await engine.close();
    const t = result.timeline;
    expect(t.tokenTimes[0] - t.admit!).toBeCloseTo(2 + 0.5 * 8 + 1 + 3, 9);
    expect(t.tokenTimes[1] - t.tokenTimes[0]).toBeCloseTo(3.5, 9);
    expect(t.tokenTimes[2] - t.tokenTimes[1]).toBeCloseTo(3.5, 9);
    expect(t.admit! - t.submitEnd).toBe(0);
  });

  it('holds the pool the memory split implies and says so in its description', async () => {
    const engine = await createEngine({ backend: 'sim', deviceSpec: device() });
    await engine.close();
    // gpt2-tiny: 2 x 4 layers x 128 x 4 bytes = 4 KiB per token, 64 KiB per 16-token block; 48 MiB left.
    expect(engine.info.numBlocks).toBe(Math.min(768, 64 * 64));
    expect(engine.info.description).toBe('sim, simulated fitted-test (fitted step costs); KV capacity: 64.0 MiB memory - 16.0 MiB weights - 0.0 MiB reserve = 48.0 MiB -> 768 blocks x 16 tokens');
    // A pool the run sets is the run's own, said apart from what the device holds ("= 35.99 GiB -> 1 blocks" read as a wrong sum).
    const { describeKvCapacity } = await import('../../src/engine/backend/sim/kv-capacity.ts');
    const capacity = { memoryBytes: 40 * 2 ** 30, weightBytes: 14 * 2 ** 20, reserveBytes: 4 * 2 ** 30, budgetBytes: 36 * 2 ** 30 } as Parameters<typeof describeKvCapacity>[0];
    expect(describeKvCapacity(capacity, 1, 16, true)).toMatch(/= 36\.00 GiB; the run's own pool: 1 block x 16 tokens$/);
  });

  it('says when the pool is capped at what the running sequences can use, not all the budget holds', async () => {
    // 48 MiB hold 768 blocks; 4 sequences of gpt2-tiny's 1024-token context use 4 x 64 = 256.
    const engine = await createEngine({ backend: 'sim', deviceSpec: device(), scheduler: { maxNumSeqs: 4 } });
    await engine.close();
    expect(engine.info.numBlocks).toBe(256);
    expect(engine.info.description).toMatch(/= 48\.0 MiB -> 256 blocks x 16 tokens \(capped: 4 sequences x 1024 tokens\)$/);
    // Said as the run's own pool when the run sized it: no cap applies.
    const sized = await createEngine({ backend: 'sim', deviceSpec: device(), scheduler: { maxNumSeqs: 4 }, kvMemoryBytes: 32 * 1024 ** 2 });
    await sized.close();
    expect(sized.info.description).toMatch(/; the run's own pool: 512 blocks x 16 tokens$/);
  });

  it('delays a request by submitMs before the scheduler sees it, and an abort in between still finishes it', async () => {
    const engine = await createEngine({ backend: 'sim', deviceSpec: device({ submitMs: 1.5 }) });
    const first = engine.submit({ promptIds: [1, 2], maxNewTokens: 2 });
    const second = engine.submit({ promptIds: [3, 4], maxNewTokens: 2 });
    second.abort();
    const [a, b] = await Promise.all([first.done, second.done]);
    await engine.close();
    expect(a.timeline.admit! - a.timeline.submitEnd).toBeCloseTo(1.5, 9);
    expect(b.finishReason).toBe('aborted');
  });

  it('scales each step by a seeded draw from the device\'s step spread: the same run twice gives the same times', async () => {
    // Half the steps at the fitted time, half up to 2x slower (quantiles 0..100%).
    const spread = Array.from({ length: 101 }, (_, i) => (i <= 50 ? 1 : 1 + (i - 50) / 50));
    const run = async (seed: number) => {
      const engine = await createEngine({ backend: 'sim', deviceSpec: device({ stepSpread: [{ fromMs: 0, quantiles: spread }] }), prefixCaching: false, seed });
      const result = await engine.submit({ promptIds: [1, 2], maxNewTokens: 400 }).done;
      await engine.close();
      expect(engine.info.description).toContain('(fitted step costs, each step drawn from their measured spread)');
      const t = result.timeline.tokenTimes;
      return t.slice(1).map((time, i) => time - t[i]);
    };
    const gaps = await run(1);
    expect(await run(1)).toEqual(gaps);
    expect(await run(2)).not.toEqual(gaps);
    // Decode steps cost 3.5 ms by the terms: never less, at most twice, about a quarter more on average.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(3.5 - 1e-9);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(7 + 1e-9);
    const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
    expect(mean / 3.5).toBeGreaterThan(1.2);
    expect(mean / 3.5).toBeLessThan(1.3);
    const slowed = gaps.filter((gap) => gap > 3.5 + 1e-9).length / gaps.length;
    expect(slowed).toBeGreaterThan(0.4);
    expect(slowed).toBeLessThan(0.6);
  });

  it("draws a step from its own size's spread: steps of 3.5 ms from the table for 3 ms and over", async () => {
    const wide = Array.from({ length: 101 }, (_, i) => 1 + i / 100);
    const flat = new Array<number>(101).fill(1);
    const engine = await createEngine({ backend: 'sim', deviceSpec: device({ stepSpread: [{ fromMs: 0, quantiles: wide }, { fromMs: 3, quantiles: flat }] }), prefixCaching: false, seed: 1 });
    const result = await engine.submit({ promptIds: [1, 2], maxNewTokens: 50 }).done;
    await engine.close();
    const t = result.timeline.tokenTimes;
    for (const gap of t.slice(1).map((time, i) => time - t[i])) expect(gap).toBeCloseTo(3.5, 9);
  });
});
