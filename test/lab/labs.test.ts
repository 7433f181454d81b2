// Each bundled lab's phenomenon on a fast configuration: the sim backend (virtual clock,
// deterministic) where the phenomenon is about scheduling, the cpu backend with small
// settings where it is about compute. Assertions keep wide margins: the machine is shared,
// so timings are noisy; what must hold is the direction and rough size of each effect.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLab } from '../../src/lab/lab-file.ts';
import { runLab, type LabRunResult } from '../../src/lab/run.ts';
import { parseOverrides } from '../../src/lab/settings.ts';
import { openDatabase } from '../../src/store/db.ts';
import { repoRoot } from '../helpers/kb-cli.ts';

async function run(name: string, sets: string[], points?: string[]): Promise<LabRunResult> {
  const lab = parseLab(readFileSync(join(repoRoot, 'lab', `${name}.md`), 'utf8'), name);
  const db = openDatabase(':memory:');
  try {
    const result = await runLab({ db, lab, overrides: parseOverrides(sets), points });
    expect(result.status).toBe('ok');
    return result;
  } finally {
    db.close();
  }
}

const at = (result: LabRunResult, label: string, metric: string): number => {
  const value = result.points.find((p) => p.label === label)?.metrics[metric];
  if (value === undefined) throw new Error(`${metric} not measured at ${label}`);
  return value;
};

describe('bundled labs on fast configurations', () => {
  it('batching (sim): continuous beats static on throughput and TTFT p95 at the same cap', async () => {
    const result = await run('batching', ['backend=sim', 'workload.rate=2000']);
    expect(result.verdict).toBe('reproduced');
    expect(at(result, 'continuous', 'throughput.output_tps') / at(result, 'static', 'throughput.output_tps')).toBeGreaterThan(1.3);
    expect(at(result, 'continuous', 'ttft.p95') / at(result, 'static', 'ttft.p95')).toBeLessThan(0.7);
    expect(at(result, 'continuous', 'scheduler.running_mean')).toBeGreaterThan(at(result, 'static', 'scheduler.running_mean'));
    expect(result.chart?.kind).toBe('bars');
  });

  it('prefix-cache (cpu): the shared prompt is served from cache, prefill shrinks, TTFT p50 falls', async () => {
    const result = await run('prefix-cache', ['workload.requests=8', 'workload.promptTokens=512', 'workload.sharedPrefix=496', 'warmup=0']);
    // 7 of 8 requests find 31 of their 32 blocks cached.
    expect(at(result, 'true', 'kv.prefix_hit_rate')).toBeCloseTo((7 * 496) / (8 * 512), 5);
    expect(at(result, 'false', 'kv.prefix_hit_rate')).toBe(0);
    expect(at(result, 'true', 'scheduler.prefill_tokens')).toBe(512 + 7 * 16);
    expect(at(result, 'false', 'scheduler.prefill_tokens')).toBe(8 * 512);
    expect(at(result, 'true', 'ttft.p50') / at(result, 'false', 'ttft.p50')).toBeLessThan(0.6);
  });

  it('chunked-prefill (cpu): a whole long prefill spikes ITL p99; chunks bound it and delay the long prompt', async () => {
    const result = await run('chunked-prefill', ['workload.requests=12'], ['0', '64']);
    expect(at(result, '0', 'itl.p99') / at(result, '0', 'itl.p50')).toBeGreaterThan(3);
    expect(at(result, '64', 'itl.p99') / at(result, '0', 'itl.p99')).toBeLessThan(0.6);
    expect(at(result, '64', 'ttft_long.p50')).toBeGreaterThan(at(result, '0', 'ttft_long.p50'));
    expect(result.chart?.points.map((p) => p.x)).toEqual([0, 64]);
  });

  it('ttft-vs-length (cpu): the fitted growth exponent rises above 1 for long prompts', async () => {
    const result = await run('ttft-vs-length', ['repeats=1']);
    expect(result.sweepMetrics['fit.exponent_high']).toBeGreaterThan(1.1);
    expect(result.sweepMetrics['fit.exponent_high']).toBeGreaterThan(result.sweepMetrics['fit.exponent_low'] + 0.3);
    expect(result.chart?.fit?.k).toBeCloseTo(result.sweepMetrics['fit.exponent'], 10);
  });

  it('batch-size-sweep (cpu): decode throughput climbs, then flattens; the roofline is probed in the run', async () => {
    const result = await run('batch-size-sweep', ['workload.outputTokens=8'], ['1', '8', '32', '128']);
    expect(at(result, '8', 'decode.tokens_per_s') / at(result, '1', 'decode.tokens_per_s')).toBeGreaterThan(2.5);
    // Four times the sequences, well under four times the throughput (noisy on a shared machine).
    expect(at(result, '128', 'decode.tokens_per_s') / at(result, '32', 'decode.tokens_per_s')).toBeLessThan(3);
    expect(result.sweepMetrics['probe.bandwidth_gbs']).toBeGreaterThan(0);
    expect(result.sweepMetrics['probe.gflops']).toBeGreaterThan(0);
    // The prediction rises less than N-fold from 1 to 128: it has a ridge.
    expect(at(result, '128', 'roofline.decode_tps') / at(result, '1', 'roofline.decode_tps')).toBeLessThan(128);
    expect(at(result, '8', 'roofline.decode_tps')).toBeGreaterThan(at(result, '1', 'roofline.decode_tps'));
  });

  it('load-sweep (cpu): rates relative to the measured capacity; TTFT p95 climbs and goodput falls behind', async () => {
    // Four seats instead of sixteen: a queue forms within a dozen requests.
    const result = await run('load-sweep', ['workload.requests=12', 'engine.maxNumSeqs=4', 'engine.prefillMaxBatch=4'], ['0.25', '4']);
    const capacity = result.sweepMetrics['load.capacity_rps'];
    expect(capacity).toBeGreaterThan(0);
    expect(result.points.map((p) => p.settings.workload.rate)).toEqual([0.25 * capacity, 4 * capacity]);
    expect(at(result, '4', 'ttft.p95') / at(result, '0.25', 'ttft.p95')).toBeGreaterThan(3);
    expect(at(result, '0.25', 'slo.met_fraction')).toBeGreaterThanOrEqual(0.9);
    expect(at(result, '4', 'slo.met_fraction')).toBeLessThan(0.8);
    expect(result.sweepMetrics['slo.max_x']).toBe(0.25);
    expect(result.chart?.points.map((p) => p.x)).toEqual([0.25, 4]);
  });
});
