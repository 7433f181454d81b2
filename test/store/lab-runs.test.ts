import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { finishLabRun, labRun, labRunsOf, latestLabRuns, startLabRun } from '../../src/store/lab-runs.ts';

describe('lab_runs', () => {
  it('keeps a started run as partial until it finishes, then lists runs newest first', () => {
    const db = openDatabase(':memory:');
    const first = startLabRun(db, { lab: 'ttft-breakdown', startedAt: 1000, settings: { a: 1 }, backend: 'cpu' });
    expect(labRun(db, first)).toMatchObject({ status: 'partial', finishedAt: null, result: null, settings: { a: 1 } });
    finishLabRun(db, first, { status: 'ok', finishedAt: 2000, result: { verdict: 'reproduced' }, device: '2 threads' });
    const second = startLabRun(db, { lab: 'ttft-breakdown', startedAt: 3000, settings: {}, backend: 'sim' });
    const other = startLabRun(db, { lab: 'batching', startedAt: 3500, settings: {}, backend: 'cpu' });
    finishLabRun(db, other, { status: 'failed', finishedAt: 3600, result: { note: 'boom' } });

    expect(labRunsOf(db, 'ttft-breakdown').map((r) => [r.id, r.status])).toEqual([
      [second, 'partial'],
      [first, 'ok'],
    ]);
    expect(labRun(db, first)).toMatchObject({ device: '2 threads', result: { verdict: 'reproduced' }, finishedAt: 2000 });
    // The latest *finished* run of each lab: the one still running does not count.
    const latest = latestLabRuns(db);
    expect(latest.get('ttft-breakdown')?.id).toBe(first);
    expect(latest.get('batching')?.status).toBe('failed');
    expect(labRunsOf(db, 'ttft-breakdown', 1)).toHaveLength(1);
    db.close();
  });
});
