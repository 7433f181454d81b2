// The line on a card's back: the newest complete run of its lab (else the newest finished), from the lab_runs table.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { finishLabRun, startLabRun } from '../../src/store/lab-runs.ts';
import { cardLabRunner, latestRunLine } from '../../src/app/card-labs/card-lab-runner.ts';
import { join } from 'node:path';
import { tempDir } from '../helpers/kb-cli.ts';

const HOUR = 3_600_000;
const checks = (pass: Array<boolean | null>) =>
  pass.map((p, i) => ({ metric: i === 0 ? 'queue_wait.p99 / ttft.p99' : 'ttft.p99', op: '>=', value: 0.8, say: `check ${i}`, measured: p === null ? null : 0.9371 + i, at: null, pass: p, problem: p === null ? 'interrupted' : null }));

describe('latestRunLine', () => {
  it('says when a lab has not run yet', () => {
    const db = openDatabase(':memory:');
    expect(latestRunLine(db, 'ttft-breakdown', 0)).toBe('ttft-breakdown · not run yet');
    // Started but never finished (running elsewhere, or killed): still no result.
    startLabRun(db, { lab: 'ttft-breakdown', startedAt: 1000, settings: {}, backend: 'cpu' });
    expect(latestRunLine(db, 'ttft-breakdown', 2000)).toBe('ttft-breakdown · not run yet');
    db.close();
  });

  it('says a card\'s lab is nowhere, rather than "not run yet" (l had nothing to run)', () => {
    const labs = cardLabRunner(openDatabase(':memory:'), tempDir());
    expect(labs.latest('ttft-brekdown', 0)).toBe('ttft-brekdown · no such lab (kb lab list names them)');
    expect(labs.latest('ttft-breakdown', 0)).toBe('ttft-breakdown · not run yet');
  });

  it('gives the verdict, the tally, how long ago, and the first measured figure', () => {
    const db = openDatabase(':memory:');
    const ok = startLabRun(db, { lab: 'ttft-breakdown', startedAt: 0, settings: {}, backend: 'cpu' });
    finishLabRun(db, ok, { status: 'ok', finishedAt: 1000, result: { verdict: 'reproduced', checks: checks([true, true]) } });
    expect(latestRunLine(db, 'ttft-breakdown', 1000 + 3 * HOUR)).toBe('ttft-breakdown · reproduced 2/2 · 3h ago · queue_wait.p99 / ttft.p99 = 0.937');
    // A newer interrupted run measured part of the lab: the complete run stays, and the line says a newer one stopped.
    const partial = startLabRun(db, { lab: 'ttft-breakdown', startedAt: 2000, settings: {}, backend: 'cpu' });
    finishLabRun(db, partial, { status: 'partial', finishedAt: 3000, result: { verdict: 'incomplete', checks: checks([null, true]) } });
    expect(latestRunLine(db, 'ttft-breakdown', 1000 + 3 * HOUR)).toBe('ttft-breakdown · reproduced 2/2 · 3h ago · queue_wait.p99 / ttft.p99 = 0.937 · a newer run was interrupted');
    const failed = startLabRun(db, { lab: 'ttft-breakdown', startedAt: 4000, settings: {}, backend: 'cpu' });
    finishLabRun(db, failed, { status: 'failed', finishedAt: 5000, result: { note: 'boom' } });
    expect(latestRunLine(db, 'ttft-breakdown', 1000 + 3 * HOUR)).toBe('ttft-breakdown · reproduced 2/2 · 3h ago · queue_wait.p99 / ttft.p99 = 0.937 · a newer run failed');
    db.close();
  });

  it('says what a run changed from the lab file, or the server it measured', () => {
    // The lab's own exercise: "--set engine.prefillMaxBatch=256 ... the expectations will no
    // longer hold, and that is the lesson". The card's back then read "not reproduced 0/2"
    // under the answer, as if the lab as written had failed to show it.
    const db = openDatabase(':memory:');
    const changed = startLabRun(db, { lab: 'ttft-breakdown', startedAt: 0, settings: { changed: [{ key: 'engine.prefillMaxBatch', value: 256 }] }, backend: 'cpu' });
    finishLabRun(db, changed, { status: 'ok', finishedAt: 1000, result: { verdict: 'not reproduced', checks: checks([false, false]) } });
    expect(latestRunLine(db, 'ttft-breakdown', 1000 + HOUR)).toBe('ttft-breakdown · not reproduced 0/2 · 1h ago · queue_wait.p99 / ttft.p99 = 0.937 · with engine.prefillMaxBatch=256');
    const served = startLabRun(db, { lab: 'ttft-breakdown', startedAt: 2000, settings: { changed: [], endpoint: { url: 'http://gpu-box:8000/v1', model: 'gpt2', maxConcurrency: null } }, backend: 'endpoint' });
    finishLabRun(db, served, { status: 'ok', finishedAt: 3000, result: { verdict: 'reproduced', checks: checks([true, true]) } });
    expect(latestRunLine(db, 'ttft-breakdown', 3000 + HOUR)).toBe('ttft-breakdown · reproduced 2/2 · 1h ago · queue_wait.p99 / ttft.p99 = 0.937 · against http://gpu-box:8000/v1');
    db.close();
  });

  it('one run of a lab with no expectations: its headline figure, and no "reproduced" it did not test', () => {
    const db = openDatabase(':memory:');
    const only = startLabRun(db, { lab: 'mine', startedAt: 0, settings: {}, backend: 'cpu' });
    const points = [{ label: null, partial: false, metrics: { 'ttft.p99': 16.27, 'throughput.output_tps': 129859.7 } }];
    finishLabRun(db, only, { status: 'ok', finishedAt: 1000, result: { verdict: 'reproduced', checks: [], points } });
    expect(latestRunLine(db, 'mine', 1000 + HOUR)).toBe('mine · ok · 1h ago · ttft.p99 = 16.27 ms');
    db.close();
  });

  it('with no complete run, gives the newest finished one: interrupted, or failed', () => {
    const db = openDatabase(':memory:');
    // Its figure is the first one it measured.
    const partial = startLabRun(db, { lab: 'ttft-breakdown', startedAt: 2000, settings: {}, backend: 'cpu' });
    finishLabRun(db, partial, { status: 'partial', finishedAt: 3000, result: { verdict: 'incomplete', checks: checks([null, true]) } });
    expect(latestRunLine(db, 'ttft-breakdown', 3000 + 30_000)).toBe('ttft-breakdown · incomplete 1/2 (interrupted) · <1m ago · ttft.p99 = 1.94 ms');
    const failed = startLabRun(db, { lab: 'ttft-breakdown', startedAt: 4000, settings: {}, backend: 'cpu' });
    finishLabRun(db, failed, { status: 'failed', finishedAt: 5000, result: { note: 'boom' } });
    expect(latestRunLine(db, 'ttft-breakdown', 5000 + 2 * 24 * HOUR)).toBe('ttft-breakdown · failed · 2d ago');
    db.close();
  });
});

describe('a card lab run on a full disk', () => {
  it('says which database is full and what to do, as the command line does (it said only "database or disk is full")', async () => {
    const path = join(tempDir('kb-full-'), 'kb.db');
    const db = openDatabase(path);
    // No page more than it has: the run's first row cannot be stored (SQLITE_FULL), as on a full disk.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const run = cardLabRunner(db, tempDir()).run('ttft-breakdown', { signal: new AbortController().signal, onProgress: () => {} });
    await expect(run).rejects.toThrow(`database ${path}: the disk is full; free some space and run the lab again (the change in flight was rolled back) (SQLITE_FULL)`);
    db.close();
  });
});
