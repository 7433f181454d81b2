// Real runs of the ttft-breakdown lab on fast configurations: the seed-003 phenomenon must
// show (queue wait dominates TTFT p99 at cap 16) and flip when the cap is lifted. Margins,
// not exact times.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLab } from '../../src/lab/lab-file.ts';
import { runLab } from '../../src/lab/run.ts';
import { labRunText } from '../../src/lab/report-text.ts';
import { fitLines } from '../../src/ui/text/fit-lines.ts';
import { parseOverrides } from '../../src/lab/lab-settings.ts';
import { openDatabase } from '../../src/store/db.ts';
import { labRun } from '../../src/store/lab-runs.ts';
import { repoRoot } from '../helpers/kb-cli.ts';

const lab = parseLab(readFileSync(join(repoRoot, 'lab/ttft-breakdown.md'), 'utf8'), 'ttft-breakdown');

describe('ttft-breakdown on the sim backend (virtual clock)', () => {
  it('reproduces the split at cap 16 and loses it at cap 256; both runs are stored', async () => {
    const db = openDatabase(':memory:');
    const capped = await runLab({ db, lab, overrides: parseOverrides(['backend=sim', 'warmup=0']) });
    expect(capped.status).toBe('ok');
    expect(capped.verdict).toBe('reproduced');
    const m = capped.points[0].metrics;
    expect(m.requests).toBe(256);
    expect(m['queue_wait.p99'] / m['ttft.p99']).toBeGreaterThan(0.85);
    expect(m['prefill_first.p99'] / m['ttft.p99']).toBeLessThan(0.15);

    const lifted = await runLab({ db, lab, overrides: parseOverrides(['backend=sim', 'warmup=0', 'engine.prefillMaxBatch=256']) });
    expect(lifted.verdict).toBe('not reproduced');
    const n = lifted.points[0].metrics;
    expect(n['queue_wait.p99']).toBeLessThan(m['queue_wait.p99'] / 4);
    expect(n['queue_wait.p99'] / n['ttft.p99']).toBeLessThan(0.5);
    expect(lifted.changed).toEqual([
      { key: 'backend', value: 'sim' },
      { key: 'warmup', value: 0 },
      { key: 'engine.prefillMaxBatch', value: 256 },
    ]);

    const stored = labRun(db, lifted.runId);
    expect(stored).toMatchObject({ lab: 'ttft-breakdown', status: 'ok', backend: 'sim', result: { verdict: 'not reproduced' } });
    db.close();
  });
});

describe('the report\'s last lines', () => {
  it('keep each command whole on an 80-column terminal, the longest store line too', async () => {
    const db = openDatabase(':memory:');
    const stopped = new AbortController();
    stopped.abort();
    const result = await runLab({ db, lab, overrides: parseOverrides(['backend=sim', 'warmup=0']), signal: stopped.signal });
    expect(result.points).toEqual([]);
    // "Run #1 stored (partial: its settings, no figures). Past runs: kb lab history" then
    // "ttft-breakdown" on a line of its own: the command broken in two.
    const lines = fitLines(labRunText(result), 79).split('\n');
    expect(lines).toContain('Past runs: kb lab history ttft-breakdown');
    expect(lines).toContain('The exercise: kb lab show ttft-breakdown');
    db.close();
  });
});

describe('ttft-breakdown on the cpu backend', () => {
  it('shows queue wait dominating TTFT p99 with 64 requests', async () => {
    const db = openDatabase(':memory:');
    const progress: number[] = [];
    const result = await runLab({
      db,
      lab,
      overrides: parseOverrides(['workload.requests=64', 'warmup=0']),
      onProgress: (p) => progress.push(p.requestsDone),
    });
    expect(result.status).toBe('ok');
    const m = result.points[0].metrics;
    expect(m.requests).toBe(64);
    expect(m.output_tokens).toBe(64 * 16);
    // 64 requests in waves of 16: the last wave waits ~3 of its 4 admission steps.
    expect(m['queue_wait.p99'] / m['ttft.p99']).toBeGreaterThan(0.5);
    expect(m['queue_wait.p50']).toBeLessThan(m['queue_wait.p99']);
    expect(progress.at(-1)).toBe(64);
    db.close();
  }, 60_000);

  it('an aborted run is stored as partial', async () => {
    const db = openDatabase(':memory:');
    const controller = new AbortController();
    const result = await runLab({
      db,
      lab,
      overrides: parseOverrides(['workload.requests=64', 'warmup=0']),
      signal: controller.signal,
      onProgress: (p) => {
        if (p.requestsDone >= 8) controller.abort();
      },
    });
    expect(result.status).toBe('partial');
    expect(result.verdict).toBe('incomplete');
    expect(labRun(db, result.runId)?.status).toBe('partial');
    db.close();
  }, 60_000);
});

describe('a sweep stopped before any request finished', () => {
  it('says nothing was measured, as a single run does, not "0 of 2 points completed"', async () => {
    // Found following the README: kb lab batching, Ctrl-C while gpt2 loaded, said
    // "Note: interrupted: 0 of 2 points completed" where the README promises the words below.
    const sweep = parseLab(readFileSync(join(repoRoot, 'lab/ttft-vs-length.md'), 'utf8'), 'ttft-vs-length');
    const db = openDatabase(':memory:');
    const stopped = new AbortController();
    stopped.abort();
    const result = await runLab({ db, lab: sweep, overrides: parseOverrides(['backend=sim']), signal: stopped.signal });
    expect(result.status).toBe('partial');
    expect(result.points).toEqual([]);
    expect(result.note).toBe('interrupted before any request finished: nothing was measured');
    expect(labRunText(result)).toMatch(/Note: interrupted before any request finished: nothing was measured\n/);
    expect(labRunText(result)).toMatch(/Run #1 stored \(partial: its settings, no figures\)/);
    db.close();
  });
});

describe('a sweep interrupted part way', () => {
  it("judges its points that finished, not its sweep-wide fit (a fit of two points gave an exponent ratio of -46), and its verdict says why it is incomplete", async () => {
    const sweep = parseLab(readFileSync(join(repoRoot, 'lab/ttft-vs-length.md'), 'utf8'), 'ttft-vs-length');
    const db = openDatabase(':memory:');
    const controller = new AbortController();
    const result = await runLab({
      db,
      lab: sweep,
      overrides: parseOverrides(['backend=sim']),
      signal: controller.signal,
      onProgress: (p) => {
        if (p.pointIndex >= 2) controller.abort();
      },
    });
    expect(result.status).toBe('partial');
    const fitChecks = result.checks.filter((c) => c.check.numerator.metric.startsWith('fit.'));
    expect(fitChecks.length).toBeGreaterThan(0);
    for (const check of fitChecks) expect(check).toMatchObject({ pass: null, problem: 'the sweep was interrupted: its sweep-wide figures need every point' });
    expect(labRunText(result)).toMatch(/Verdict: incomplete \((\d+) of \d+ expectations could not be judged\)/);
    expect(labRunText(result)).not.toMatch(/Verdict: incomplete \(0 of/);
    db.close();
  }, 60_000);
});
