// kb lab on sweeps, for real: the chart in the text and in --json, `history` comparing the
// last two runs point by point, and `compare` putting two runs side by side.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runKb, tempDir } from '../helpers/kb-cli.ts';

interface SweepJson {
  id: number;
  verdict: string;
  sweep: { key: string; labels: string[] };
  chart: { kind: string; series: string[]; points: Array<{ label: string; x: number | null; values: Record<string, number> }>; knee: { x: number } | null; slo: { limitMs: number } | null };
  sweepMetrics: Record<string, number>;
}

describe('kb lab sweeps: chart, history, compare', () => {
  it('draws the chart, keeps it in --json, and compares runs', () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const first = runKb(['lab', 'batching', '--backend', 'sim', '--set', 'workload.rate=2000', '--json'], { env });
    expect(first.code).toBe(0);
    const json = JSON.parse(first.stdout) as SweepJson;
    expect(json.verdict).toBe('reproduced');
    expect(json.chart.kind).toBe('bars');
    expect(json.chart.series).toEqual(['throughput.output_tps', 'ttft.p95']);
    expect(json.chart.points.map((p) => p.label)).toEqual(['static', 'continuous']);

    const second = runKb(['lab', 'batching', '--backend', 'sim', '--set', 'workload.rate=2000', '--set', 'engine.maxNumSeqs=16'], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/Chart \(throughput\.output_tps, ttft\.p95 by engine\.policy\):\n {2}throughput\.output_tps \(tokens\/s\)\n {4}engine\.policy=static {6}█+/);

    const history = runKb(['lab', 'history', 'batching'], { env });
    expect(history.code).toBe(0);
    expect(history.stdout).toContain(`Last two runs compared (#${json.id} -> #${json.id + 1}):`);
    expect(history.stdout).toContain('setting engine.maxNumSeqs: 8 -> 16');
    expect(history.stdout).toMatch(/at continuous:\n\s+throughput\.output_tps\s+[\d.]+ tokens\/s -> [\d.]+ tokens\/s \([+-][\d.]+%\)/);

    const compare = runKb(['lab', 'compare', String(json.id), String(json.id + 1)], { env });
    expect(compare.code).toBe(0);
    expect(compare.stdout).toMatch(new RegExp(`^Runs #${json.id} and #${json.id + 1} side by side:`));
    expect(compare.stdout).toMatch(/engine\.maxNumSeqs: 8 -> 16/);
    expect(compare.stdout).toMatch(/At static:\n\s+throughput\.output_tps\s+[\d.]+ tokens\/s\s+[\d.]+ tokens\/s\s+[+-][\d.]+%/);
    expect(compare.stdout).toMatch(new RegExp(`continuous batching cuts TTFT p95 by at least 15%\\n +#${json.id} ✓ [\\d.]+  #${json.id + 1} [✓✗] [\\d.]+`));
    for (const line of compare.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);

    // --json gives each run one level deep, its fields named as kb lab <name> --json names
    // them: the settings column's own object was passed on whole (settings.settings.engine).
    const compareJson = runKb(['lab', 'compare', String(json.id), String(json.id + 1), '--json'], { env });
    expect(compareJson.code).toBe(0);
    const compared = JSON.parse(compareJson.stdout) as { runs: Array<Record<string, unknown> & { settings: Record<string, unknown> }>; settingsChanged: string[] };
    expect(compared.runs.map((r) => r.id)).toEqual([json.id, json.id + 1]);
    const [before, after] = compared.runs;
    expect(Object.keys(after).sort()).toEqual(['backend', 'changed', 'device', 'endpoint', 'finishedAt', 'id', 'lab', 'result', 'settings', 'startedAt', 'status', 'sweep', 'verdict']);
    expect(after.settings).not.toHaveProperty('settings');
    expect(before.settings).toMatchObject({ backend: 'sim', engine: { maxNumSeqs: 8 }, workload: { rate: 2000 } });
    expect(after.settings).toMatchObject({ engine: { maxNumSeqs: 16 } });
    expect(after.changed).toEqual({ backend: 'sim', 'workload.rate': 2000, 'engine.maxNumSeqs': 16 });
    expect(after.sweep).toEqual({ key: 'engine.policy', labels: ['static', 'continuous'] });
    expect(after).toMatchObject({ lab: 'batching', status: 'ok', backend: 'sim', endpoint: null, verdict: expect.any(String) });
    expect(compared.settingsChanged).toEqual(['engine.maxNumSeqs: 8 -> 16']);
    // kb lab history --json gives its runs in the same shape.
    const historyJson = JSON.parse(runKb(['lab', 'history', 'batching', '--json'], { env }).stdout) as { runs: Array<Record<string, unknown>> };
    expect(historyJson.runs[0]).toEqual(after);

    const missing = runKb(['lab', 'compare', String(json.id), '999'], { env });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/no stored lab run #999/);
    const bad = runKb(['lab', 'compare', 'x', '1'], { env });
    expect(bad.stderr).toMatch(/"x" is not a run id/);
    const same = runKb(['lab', 'compare', String(json.id), `#${json.id}`], { env });
    expect(same.code).toBe(1);
    expect(same.stderr).toBe(`kb: #${json.id} twice: give two different runs to compare (see kb lab history)\n`);
  });

  it('a line chart with an SLO line and a knee, in text and --json (sim, fast)', () => {
    const env = { KB_DB: join(tempDir(), 'kb.db') };
    const run = runKb(['lab', 'load-sweep', '--backend', 'sim', '--json'], { env });
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as SweepJson;
    expect(json.chart.kind).toBe('line');
    expect(json.chart.points.map((p) => p.x)).toEqual([0.5, 1, 2, 4]);
    expect(json.sweepMetrics['load.capacity_rps']).toBeGreaterThan(0);
    expect(json.chart.slo?.limitMs).toBeCloseTo(json.sweepMetrics['slo.limit_ms']);
    const text = runKb(['lab', 'load-sweep', '--backend', 'sim', '--points', '0.5,1,4'], { env });
    expect(text.stdout).toMatch(/┤.*●/);
    expect(text.stdout).toMatch(/● ttft\.p95 {3}─ SLO [\d.]+ ms {3}▼ knee at \d+/);
    expect(text.stdout).toMatch(/SLO: ttft\.p95 <= [\d.]+ ms, met (up to [\d.]+x capacity \([\d.]+ req\/s\)|at no point)\n/);
    // kb lab history says the knee and the SLO at the swept value, not knee.index 1.00.
    const history = runKb(['lab', 'history', 'load-sweep'], { env });
    expect(history.stdout).not.toMatch(/knee\.(x|index)|slo\.max_x/);
    expect(history.stdout).toMatch(/ knee of ttft\.p95 at [\d.]+x capacity \([\d.]+ req\/s\)\n/);
    expect(history.stdout).toMatch(/ SLO ttft\.p95 <= [\d.]+ ms, met (up to [\d.]+x capacity \([\d.]+ req\/s\)|at no point)\n/);
  });
});
