import { describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/index.ts';
import { timelineInOrder } from '../../src/engine/metrics/timeline.ts';

const sim = { backend: 'sim' as const, model: 'gpt2' };

describe('engine on the sim backend', () => {
  it('streams tokens with timestamps, then a finish event', async () => {
    const engine = await createEngine(sim);
    const handle = engine.submit({ promptIds: [1, 2, 3], maxNewTokens: 5 });
    const events = [];
    for await (const event of handle) events.push(event);
    expect(events.map((e) => e.type)).toEqual(['token', 'token', 'token', 'token', 'token', 'finish']);
    expect(events.slice(0, 5).map((e) => (e.type === 'token' ? e.index : -1))).toEqual([0, 1, 2, 3, 4]);
    const result = await handle.done;
    expect(result.finishReason).toBe('length');
    expect(result.outputIds).toEqual(events.flatMap((e) => (e.type === 'token' ? [e.token] : [])));
    expect(result.timeline.tokenTimes).toEqual(events.slice(0, 5).map((e) => e.time));
    expect(timelineInOrder(result.timeline)).toBe(true);
    await engine.close();
  });

  it('stamps an arrival when it happens, mid-step, and admits it at the next step', async () => {
    const engine = await createEngine({ ...sim, device: 'L4' });
    const first = engine.submit({ promptIds: Array.from({ length: 512 }, (_, i) => i), maxNewTokens: 4 });
    // The first step (a 512-token prefill) runs from t=0 for more than a millisecond.
    await engine.sleepUntil(0.5);
    const second = engine.submit({ promptIds: [7, 8], maxNewTokens: 2 });
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(b.timeline.submitStart).toBe(0.5);
    expect(b.timeline.admit).toBe(a.timeline.tokenTimes[0]);
    expect(a.timeline.tokenTimes[0]).toBeGreaterThan(0.5);
    await engine.close();
  });

  it('keeps every timeline in order under Poisson-like arrivals and a small pool', async () => {
    const engine = await createEngine({ ...sim, numBlocks: 24, blockSize: 8, scheduler: { maxNumSeqs: 6, chunkSize: 16, maxBatchedTokens: 48 } });
    const handles = [];
    for (let i = 0; i < 20; i++) {
      await engine.sleepUntil(i * 0.7);
      handles.push(engine.submit({ promptIds: Array.from({ length: 10 + ((i * 13) % 40) }, (_, j) => (j * 31 + i) % 1000), maxNewTokens: 1 + (i % 9) }));
    }
    const results = await Promise.all(handles.map((h) => h.done));
    for (const r of results) {
      expect(r.timeline.error).toBeNull();
      expect(timelineInOrder(r.timeline)).toBe(true);
    }
    const stats = await engine.stats();
    expect(stats.scheduler.preemptions).toBeGreaterThan(0);
    expect(stats.kv.usedBlocks).toBe(0);
    await engine.close();
  });

  it('fails a prompt longer than the context with an error event, and only that request', async () => {
    const engine = await createEngine(sim);
    const tooLong = engine.submit({ promptIds: Array.from({ length: 1025 }, () => 5), maxNewTokens: 1 });
    const fine = engine.submit({ promptIds: [5], maxNewTokens: 2 });
    const events = [];
    for await (const event of tooLong) events.push(event);
    expect(events).toEqual([{ type: 'error', message: expect.stringContaining("context is 1024"), time: expect.any(Number) }]);
    expect((await tooLong.done).finishReason).toBeNull();
    expect((await fine.done).outputIds).toHaveLength(2);
    await engine.close();
  });

  it('aborts one request and lets the others finish', async () => {
    const engine = await createEngine(sim);
    const a = engine.submit({ promptIds: [1], maxNewTokens: 50 });
    const b = engine.submit({ promptIds: [2], maxNewTokens: 10 });
    for await (const event of a) if (event.type === 'token' && event.index === 2) a.abort();
    expect((await a.done).finishReason).toBe('aborted');
    expect((await a.done).timeline.error).toBe('aborted');
    expect((await b.done).outputIds).toHaveLength(10);
    expect((await engine.stats()).kv.usedBlocks).toBe(0);
    await engine.close();
  });

  it('times steps with the device model: a bigger per-step overhead shows in TPOT', async () => {
    const tpot = async (stepOverheadMs: number) => {
      const engine = await createEngine({ ...sim, deviceOverrides: { stepOverheadMs } });
      const r = await engine.submit({ promptIds: [1], maxNewTokens: 11 }).done;
      await engine.close();
      return (r.timeline.finish! - r.timeline.tokenTimes[0]) / 10;
    };
    const light = await tpot(0);
    expect(await tpot(20)).toBeCloseTo(light + 20, 6);
    await expect(createEngine({ ...sim, deviceOverrides: { efficiency: 1.5 } })).rejects.toThrow(/efficiency must be in \(0, 1\]/);
  });

  it('is deterministic: same options and requests, same tokens and times', async () => {
    const run = async () => {
      const engine = await createEngine({ ...sim, seed: 9 });
      const results = await Promise.all([0, 1, 2].map((i) => engine.submit({ promptIds: [i, i + 1], maxNewTokens: 6, temperature: 0.7 }).done));
      await engine.close();
      return results.map((r) => [r.outputIds, r.timeline.tokenTimes]);
    };
    expect(await run()).toEqual(await run());
  });

  it('refuses bad options before starting, naming each problem', async () => {
    await expect(createEngine({ ...sim, scheduler: { maxNumSeqs: 0, policy: 'fifo' as never } })).rejects.toThrow(/policy must be one of continuous, static.*maxNumSeqs must be an integer in \[1, 4096\]/);
    await expect(createEngine({ ...sim, model: 'gpt5' })).rejects.toThrow(/known models: gpt2-tiny, gpt2, gpt2-medium/);
    await expect(createEngine({ ...sim, device: 'TPU' })).rejects.toThrow(/device must be one of A100-40GB/);
  });

  it('takes shapes of your own instead of a named model', async () => {
    const model = { name: 'mine', vocabSize: 100, nCtx: 32, nEmbd: 16, nLayer: 2, nHead: 2, layerNormEps: 1e-5 };
    const engine = await createEngine({ backend: 'sim', model });
    expect(engine.info.model).toEqual(model);
    const result = await engine.submit({ promptIds: Array.from({ length: 30 }, (_, i) => i), maxNewTokens: 10 }).done;
    // Outputs 1 and 2 take positions 30 and 31; output 3 is emitted with no position left.
    expect(result.finishReason).toBe('context');
    expect(result.outputIds).toHaveLength(3);
    expect(result.outputIds.every((id) => id < 100)).toBe(true);
    await engine.close();
  });

  it('fails every open request when closed', async () => {
    const engine = await createEngine(sim);
    const handle = engine.submit({ promptIds: [1], maxNewTokens: 1000 });
    await engine.close();
    const result = await handle.done;
    expect(result.finishReason === 'aborted' || result.timeline.error !== null).toBe(true);
    expect((await engine.submit({ promptIds: [1], maxNewTokens: 1 }).done).timeline.error).toBe('engine closed');
  });
});
