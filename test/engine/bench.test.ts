import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatReport } from '../../src/engine/bench/format-report.ts';
import { runBenchmark } from '../../src/engine/bench/runner.ts';
import { generateWorkload, readLengthsFile, type WorkloadSpec } from '../../src/engine/bench/workload.ts';
import { MAX_USAGE_POINTS } from '../../src/engine/metrics/usage-series.ts';
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

  it('declares a larger maxNewTokens when asked, and stops each request at its output length', () => {
    const requests = generateWorkload({ ...base, outputLength: { values: [3, 50, 9] }, maxNewTokens: 40 }, VOCAB);
    expect(requests.slice(0, 3).map((r) => [r.maxNewTokens, r.stopAfterTokens])).toEqual([[40, 3], [40, undefined], [40, 9]]);
    expect(generateWorkload(base, VOCAB).every((r) => r.maxNewTokens === 4 && r.stopAfterTokens === undefined)).toBe(true);
    expect(() => generateWorkload({ ...base, maxNewTokens: 0 }, VOCAB)).toThrow(/maxNewTokens/);
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

  it('says why TPOT and ITL have no figure when every request produced one token', async () => {
    const report = await runBenchmark({
      engine: { backend: 'sim', model: 'gpt2' },
      workload: { numRequests: 8, promptLength: 16, outputLength: 1, arrival: { kind: 'burst' } },
      warmupRuns: 0,
    });
    const text = formatReport(report);
    expect(text).toContain('TPOT p50/p95/p99: n/a (no request had a second output token)\n');
    expect(text).toContain('ITL p50/p95/p99: n/a (no request had a second output token)\n');
    expect(text).not.toContain('n/a/n/a');
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

  it('with the same memory, contiguous max-length reservation runs fewer sequences at once, wastes most of what it reserves, and gets less done than paged blocks', async () => {
    const workload: WorkloadSpec = {
      numRequests: 80,
      promptLength: { min: 16, max: 64 },
      outputLength: { min: 8, max: 128 }, // where each output stops ...
      maxNewTokens: 384, // ... under the maximum every request declares
      arrival: { kind: 'burst' },
      seed: 2,
    };
    const run = (kvReservation: 'paged' | 'contiguous') =>
      runBenchmark({
        engine: { backend: 'sim', model: 'gpt2-tiny', numBlocks: 128, prefixCaching: false, scheduler: { kvReservation } },
        workload,
        warmupRuns: 0,
      });
    const paged = await run('paged');
    const contiguous = await run('contiguous');
    const outputTokens = generateWorkload(workload, VOCAB).reduce((sum, r) => sum + (r.stopAfterTokens ?? r.maxNewTokens), 0);
    for (const report of [paged, contiguous]) {
      expect(report.metrics).toMatchObject({ completed: 80, completionTokens: outputTokens });
      expect(report.kv.fragmentation).toBeCloseTo(1 - report.kv.utilization, 9);
      expect(report.kv.meanUsedSlots).toBeLessThanOrEqual(report.kv.meanReservedBlocks * report.kv.blockSize);
      const usage = report.usage;
      expect(usage.length).toBeGreaterThan(10);
      expect(usage.length).toBeLessThanOrEqual(MAX_USAGE_POINTS);
      expect(usage[0].timeMs).toBeGreaterThanOrEqual(0);
      for (let i = 1; i < usage.length; i++) expect(usage[i].timeMs).toBeGreaterThan(usage[i - 1].timeMs);
      for (const point of usage) {
        expect(point.utilization).toBeGreaterThan(0);
        expect(point.utilization).toBeLessThanOrEqual(1);
        expect(point.reservedBlocks).toBeLessThanOrEqual(report.kv.numBlocks);
        expect(point.running).toBeLessThanOrEqual(report.scheduler.maxRunning);
      }
    }
    // A request reserves at least ceil((16 + 384 - 1) / 16) = 25 of the 128 blocks.
    expect(contiguous.scheduler.maxRunning).toBeLessThanOrEqual(5);
    expect(paged.scheduler.maxRunning).toBeGreaterThan(2 * contiguous.scheduler.maxRunning);
    expect(paged.scheduler.meanRunning).toBeGreaterThan(2 * contiguous.scheduler.meanRunning);
    expect(contiguous.scheduler.preemptions).toBe(0);
    expect(contiguous.kv.utilization).toBeLessThan(0.5);
    expect(paged.kv.utilization).toBeGreaterThan(0.8);
    expect(paged.metrics.outputTokensPerS).toBeGreaterThan(1.5 * contiguous.metrics.outputTokensPerS);
    const text = formatReport(contiguous);
    expect(text).toContain('KV contiguous');
    expect(text).toMatch(/KV use \(contiguous\): reserved blocks mean [\d.]+ peak \d+  used slots mean [\d.]+  utilization [\d.]+%  fragmentation [\d.]+%/);
    expect(formatReport(paged)).toContain('KV use (paged)');
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
