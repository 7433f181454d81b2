// vllm:iteration_tokens_total observes each engine step once, with its tokens summed, though
// with several API server threads a step's tokens arrive from each thread in any order, and a
// scrape may come between them.
import { describe, expect, it } from 'vitest';
import type { EngineStats } from '../../src/engine/index.ts';
import { STEP_SETTLE_MS, ServeMetrics } from '../../src/serve/serve-metrics.ts';

const idle = { running: 0, waiting: 0, kv: { numBlocks: 1, usedBlocks: 0, prefixQueryTokens: 0, prefixHitTokens: 0 }, scheduler: { preemptions: 0, steps: 0 }, forwardMs: 0, overheadMs: 0 } as unknown as EngineStats;
const metric = (text: string, name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);

async function iterations(metrics: ServeMetrics, settledBefore?: number) {
  const { text } = await metrics.scrape(idle, settledBefore);
  return { count: metric(text, 'vllm:iteration_tokens_total_count'), sum: metric(text, 'vllm:iteration_tokens_total_sum') };
}

describe('ServeMetrics steps from several API server threads', () => {
  it('observes a step once when a thread reports it after another thread reported a later step', async () => {
    const metrics = new ServeMetrics('m', 1024, { severalThreads: true });
    // Thread A: its request's first token at step 100 (prompt 3), then step 110.
    metrics.token(100, null, 90, 3);
    metrics.token(110, 100, 90, 3);
    // Thread B, slower: its request's first token, also at step 100 (prompt 4).
    metrics.token(100, null, 95, 4);
    expect(await iterations(metrics)).toEqual({ count: 2, sum: 4 + 5 + 1 });
  });

  it('leaves a step a thread may not have reported yet to a later scrape', async () => {
    const metrics = new ServeMetrics('m', 1024, { severalThreads: true });
    metrics.token(100, null, 90, 3); // thread A, step 100
    metrics.token(200, 100, 90, 3); // thread A, step 200: after the scrape began (150)
    expect(await iterations(metrics, 150)).toEqual({ count: 1, sum: 4 });
    metrics.token(200, null, 190, 2); // thread B's part of step 200 comes in after the scrape
    expect(await iterations(metrics)).toEqual({ count: 2, sum: 4 + 1 + 3 });
  });

  it('observes steps long settled without a scrape, so an unscraped server holds only recent ones', async () => {
    const metrics = new ServeMetrics('m', 1024, { severalThreads: true });
    metrics.token(100, null, 90, 3);
    metrics.token(100 + STEP_SETTLE_MS + 1, 100, 90, 3);
    expect(await iterations(metrics, 0)).toEqual({ count: 1, sum: 4 });
  });

  it('with one thread, observes a step as soon as a later one arrives', async () => {
    const metrics = new ServeMetrics('m', 1024);
    metrics.token(100, null, 90, 3);
    metrics.token(110, 100, 90, 3);
    expect(await iterations(metrics, 0)).toEqual({ count: 1, sum: 4 });
    expect(await iterations(metrics)).toEqual({ count: 2, sum: 5 });
  });
});
