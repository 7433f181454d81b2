import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/engine/bench/report.ts';
import { runBenchmark } from '../../src/engine/bench/runner.ts';
import { generateWorkload, readLengthsFile, type WorkloadSpec } from '../../src/engine/bench/workload.ts';
import { timelineInOrder } from '../../src/engine/metrics/timeline.ts';

const VOCAB = 50257;
const base: WorkloadSpec = { numRequests: 200, promptLength: 8, outputLength: 4, arrival: { kind: 'burst' }, seed: 1 };

describe('workload generator', () => {
  it('is seeded: the same spec gives the same requests, another seed others', () => {
    const spec: WorkloadSpec = { ...base, promptLength: { min: 4, max: 40 }, arrival: { kind: 'poisson', rate: 50 } };
    expect(generateWorkload(spec, VOCAB)).toEqual(generateWorkload(spec, VOCAB));
    expect(generateWorkload({ ...spec, seed: 2 }, VOCAB)).not.toEqual(generateWorkload(spec, VOCAB));
  });

  it('draws lengths fixed, from a range, or from a list in turn', () => {
    const ranged = generateWorkload({ ...base, promptLength: { min: 5, max: 9 }, outputLength: { values: [3, 1, 2] } }, VOCAB);
    for (const r of ranged) {
      expect(r.promptIds.length).toBeGreaterThanOrEqual(5);
      expect(r.promptIds.length).toBeLessThanOrEqual(9);
      expect(r.promptIds.every((id) => Number.isInteger(id) && id >= 0 && id < VOCAB - 1)).toBe(true);
    }
    expect(new Set(ranged.map((r) => r.promptIds.length)).size).toBe(5);
    expect(ranged.slice(0, 4).map((r) => r.maxNewTokens)).toEqual([3, 1, 2, 3]);
  });

  it('makes every prompt unique, or shares a prefix when asked', () => {
    const unique = generateWorkload({ ...base, promptLength: 1 }, VOCAB);
    expect(new Set(unique.map((r) => r.promptIds.join(','))).size).toBe(unique.length);
    const shared = generateWorkload({ ...base, sharedPrefixLength: 32, promptLength: 40 }, VOCAB);
    const prefix = shared[0].promptIds.slice(0, 32).join(',');
    expect(shared.every((r) => r.promptIds.slice(0, 32).join(',') === prefix)).toBe(true);
    expect(new Set(shared.map((r) => r.promptIds.join(','))).size).toBe(shared.length);
  });

  it('spaces arrivals: a burst at once, Poisson at the given mean rate, gamma burstier with a small shape', () => {
    expect(generateWorkload(base, VOCAB).every((r) => r.arrivalMs === 0)).toBe(true);
    const gaps = (spec: WorkloadSpec) => {
      const arrivals = generateWorkload({ ...spec, numRequests: 4000 }, VOCAB).map((r) => r.arrivalMs);
      return arrivals.slice(1).map((t, i) => t - arrivals[i]);
    };
    const stats = (g: number[]) => {
      const mean = g.reduce((a, b) => a + b, 0) / g.length;
      const cv = Math.sqrt(g.reduce((a, b) => a + (b - mean) ** 2, 0) / g.length) / mean;
      return { mean, cv };
    };
    const poisson = stats(gaps({ ...base, arrival: { kind: 'poisson', rate: 20 } }));
    expect(poisson.mean).toBeGreaterThan(45);
    expect(poisson.mean).toBeLessThan(55);
    expect(poisson.cv).toBeGreaterThan(0.9);
    expect(poisson.cv).toBeLessThan(1.1);
    const bursty = stats(gaps({ ...base, arrival: { kind: 'gamma', rate: 20, burstiness: 0.25 } }));
    expect(bursty.mean).toBeGreaterThan(42);
    expect(bursty.mean).toBeLessThan(58);
    expect(bursty.cv).toBeGreaterThan(1.7); // sqrt(1 / 0.25) = 2
    const steady = stats(gaps({ ...base, arrival: { kind: 'gamma', rate: 20, burstiness: 16 } }));
    expect(steady.cv).toBeLessThan(0.35); // sqrt(1 / 16) = 0.25
  });

  it('refuses a bad spec naming the field', () => {
    expect(() => generateWorkload({ ...base, numRequests: 0 }, VOCAB)).toThrow(/numRequests/);
    expect(() => generateWorkload({ ...base, promptLength: { min: 9, max: 3 } }, VOCAB)).toThrow(/promptLength/);
    expect(() => generateWorkload({ ...base, arrival: { kind: 'poisson', rate: 0 } }, VOCAB)).toThrow(/rate/);
  });

  it('reads lengths from a file, one per line or as a JSON array', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kb-lengths-'));
    writeFileSync(join(dir, 'a.txt'), '# trace\n12\n\n40\n7\n');
    writeFileSync(join(dir, 'b.json'), '[3, 4]');
    writeFileSync(join(dir, 'c.txt'), '5\nfive\n');
    expect(readLengthsFile(join(dir, 'a.txt'))).toEqual([12, 40, 7]);
    expect(readLengthsFile(join(dir, 'b.json'))).toEqual([3, 4]);
    expect(() => readLengthsFile(join(dir, 'c.txt'))).toThrow(/c\.txt:2: "five"/);
  });
});

describe('runBenchmark', () => {
  it('reproduces the seed-003 breakdown on the sim: with admission capped, TTFT is mostly queue wait', async () => {
    const progress: number[] = [];
    const report = await runBenchmark(
      {
        engine: { backend: 'sim', model: 'gpt2', prefixCaching: false, scheduler: { maxNumSeqs: 64, prefillMaxBatch: 16 } },
        workload: { numRequests: 256, promptLength: 4, outputLength: 64, arrival: { kind: 'burst' } },
        warmupRuns: 1,
        repeatRuns: 1,
        slo: { ttftMs: 700, tpotMs: 50 },
      },
      (p) => progress.push(p.finished),
    );
    const m = report.metrics;
    expect(m).toMatchObject({ requests: 256, completed: 256, promptTokens: 1024, completionTokens: 16384 });
    expect(m.queueWaitMs.p99).toBeGreaterThanOrEqual(0.8 * m.ttftMs.p99);
    expect(m.prefillToFirstTokenMs.p99).toBeLessThan(0.1 * m.ttftMs.p99);
    expect(report.runs[0].timelines.every(timelineInOrder)).toBe(true);
    expect(report.scheduler.maxRunning).toBe(64);
    expect(report.kv.peakUsedBlocks).toBeGreaterThan(0);
    expect(progress.filter((n) => n === 256)).toHaveLength(2); // warm-up and measured run
    const text = formatReport(report);
    for (const line of ['Requests: 256', 'Prompt tokens (total): 1024', 'Completion tokens (total): 16384', 'Queue wait p50/p95/p99:', 'Prefill->first token p50/p95/p99:', 'TTFT p50/p95/p99:', 'TPOT p50/p95/p99:', 'ITL p50/p95/p99:', 'Latency p50/p95/p99:', 'Throughput (completion,total):', 'Goodput (TTFT <= 700 ms, TPOT <= 50 ms):', 'KV cache:', 'Steps:']) {
      expect(text).toContain(line);
    }

    // Raising the cap moves TTFT out of the queue.
    const uncapped = await runBenchmark({
      engine: { backend: 'sim', model: 'gpt2', prefixCaching: false, scheduler: { maxNumSeqs: 256, prefillMaxBatch: 256 } },
      workload: { numRequests: 256, promptLength: 4, outputLength: 64, arrival: { kind: 'burst' } },
      warmupRuns: 0,
    });
    expect(uncapped.metrics.queueWaitMs.p99).toBeLessThan(m.queueWaitMs.p99 / 10);
  });

  it('pools repeats, starts each run with a cold prefix cache, and counts shared-prefix hits', async () => {
    const report = await runBenchmark({
      engine: { backend: 'sim', model: 'gpt2-tiny', device: 'L4' },
      workload: { numRequests: 20, promptLength: 64, outputLength: 3, sharedPrefixLength: 48, arrival: { kind: 'poisson', rate: 200 }, seed: 4 },
      warmupRuns: 1,
      repeatRuns: 3,
    });
    expect(report.runs).toHaveLength(3);
    expect(report.metrics.requests).toBe(60);
    const rates = report.runs.map((r) => r.kv.prefixHitRate);
    expect(rates[0]).toBeGreaterThan(0.5);
    expect(rates).toEqual([rates[0], rates[0], rates[0]]); // same cold start each run
  });

  it('stops early when aborted and marks the report partial', async () => {
    const controller = new AbortController();
    const report = await runBenchmark(
      {
        engine: { backend: 'sim', model: 'gpt2' },
        workload: { numRequests: 100, promptLength: 4, outputLength: 50, arrival: { kind: 'poisson', rate: 100 } },
        warmupRuns: 0,
        signal: controller.signal,
      },
      (p) => {
        if (p.finished === 10) controller.abort();
      },
    );
    expect(report.partial).toBe(true);
    expect(report.metrics.completed).toBeLessThan(100);
    expect(formatReport(report)).toContain('partial');
  });
});
