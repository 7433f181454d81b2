// While a git operation (merge, rebase, cherry-pick, revert) is under way in the knowledge
// base, kb appends nothing to its log file: git owns the file then (an append made during a
// paused kb sync stopped `git rebase --continue`, found by a new-user probe). The events wait
// in the database, applied to the schedule, and the first kb after the operation appends them
// in their order; a kill at any point loses none and appends none twice.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import { syncReviewLogs } from '../../src/app/review-log/open-review-log.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const NOTE = "---\ncreated: '2025-10-19'\nreview_count: 0\n---\n# What is TTFT?\n\n## Answer\n\nTime to the first token.\n";
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 2, 12);

async function fixture() {
  const root = tempDir('kb-held-');
  mkdirSync(join(root, 'notes'), { recursive: true });
  writeFileSync(join(root, 'notes/ttft.md'), NOTE);
  mkdirSync(join(root, '.kb'));
  // A repository as git leaves it mid-merge: the marker is all kb reads.
  mkdirSync(join(root, '.git'));
  const dbPath = join(root, '.kb/kb.db');
  const db = openDatabase(dbPath);
  const target = { root, db, writable: true, config: defaultConfig };
  await scanKnowledgeBase(target, { now: Date.UTC(2026, 0, 1) });
  const id = (db.prepare('SELECT id FROM cards').get() as { id: string }).id;
  return { root, db, dbPath, target, id, service: new ReviewService(target) };
}

const startMerge = (root: string) => writeFileSync(join(root, '.git/MERGE_HEAD'), '0'.repeat(40) + '\n');
const endMerge = (root: string) => rmSync(join(root, '.git/MERGE_HEAD'));

/** This device's log file's events, in file order: [n, id]. */
function logged(root: string): Array<[number, string]> {
  const names = readdirSync(join(root, 'reviews')).filter((name) => name.endsWith('.jsonl'));
  expect(names).toHaveLength(1);
  return readFileSync(join(root, 'reviews', names[0]), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { n: number; id: string })
    .map((event) => [event.n, event.id]);
}

function stored(db: KbDatabase): Array<[number, string]> {
  return (db.prepare('SELECT n, id FROM review_events ORDER BY n').all() as Array<{ n: number; id: string }>).map((row) => [row.n, row.id]);
}

function reps(db: KbDatabase): number {
  return (db.prepare('SELECT reps FROM fsrs').get() as { reps: number }).reps;
}

/** The step after the waiting events' append fails (their mark taken off), as a kill between the append and the commit leaves it. */
function failAfterAppend(db: KbDatabase): void {
  db.exec("CREATE TRIGGER full BEFORE DELETE ON meta BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END");
}

function healed(db: KbDatabase): void {
  db.exec('DROP TRIGGER full');
}

describe('review log while a git operation is under way', () => {
  it('keeps the events out of the file, applies them, and appends them in order at the first open after it', async () => {
    const f = await fixture();
    f.service.rate(f.id, 3, T0);
    const before = logged(f.root);
    startMerge(f.root);
    const rated = f.service.rate(f.id, 3, T0 + 2 * DAY);
    expect(rated.writeback).toMatchObject({ status: 'refused', reason: expect.stringMatching(/git merge is in progress \(the note and the review log are written once it ends\)/) });
    f.service.act(f.id, 'bury', T0 + 2 * DAY + 1);
    expect(logged(f.root)).toEqual(before);
    expect(reps(f.db)).toBe(2);
    // Any command meanwhile reads the logs and leaves the file alone.
    syncReviewLogs(f.target);
    expect(logged(f.root)).toEqual(before);

    endMerge(f.root);
    syncReviewLogs(f.target);
    expect(logged(f.root)).toEqual(stored(f.db));
    expect(logged(f.root).map(([n]) => n)).toEqual([0, 1, 2]);
    syncReviewLogs(f.target);
    expect(logged(f.root).map(([n]) => n)).toEqual([0, 1, 2]);
    // The note's fields follow too.
    expect(readFileSync(join(f.root, 'notes/ttft.md'), 'utf8')).toMatch(/review_count: 2\n/);
    // A database built again from the file has the same schedule.
    const row = f.db.prepare('SELECT * FROM fsrs').get();
    f.db.close();
    rmSync(f.dbPath);
    const fresh = openDatabase(f.dbPath);
    await scanKnowledgeBase({ ...f.target, db: fresh }, { now: Date.UTC(2026, 0, 1) });
    syncReviewLogs({ ...f.target, db: fresh });
    expect(fresh.prepare('SELECT * FROM fsrs').get()).toEqual(row);
    fresh.close();
  });

  it('a rating after the operation ends appends the waiting events first', async () => {
    const f = await fixture();
    startMerge(f.root);
    f.service.rate(f.id, 3, T0);
    f.service.rate(f.id, 3, T0 + DAY);
    expect(() => logged(f.root)).toThrow(); // no file yet
    endMerge(f.root);
    f.service.rate(f.id, 4, T0 + 3 * DAY);
    expect(logged(f.root)).toEqual(stored(f.db));
    expect(logged(f.root).map(([n]) => n)).toEqual([0, 1, 2]);
  });

  it('appends each waiting event once when killed after the append and before its commit', async () => {
    const f = await fixture();
    f.service.rate(f.id, 3, T0);
    startMerge(f.root);
    f.service.rate(f.id, 3, T0 + 2 * DAY);
    f.service.rate(f.id, 2, T0 + 5 * DAY);
    endMerge(f.root);
    // The open's transaction appends, then dies before its commit: the file keeps the lines,
    // the database still says they wait.
    failAfterAppend(f.db);
    expect(() => syncReviewLogs(f.target)).toThrow(/disk is full/);
    expect(logged(f.root).map(([n]) => n)).toEqual([0, 1, 2]);
    healed(f.db);
    syncReviewLogs(f.target);
    expect(logged(f.root)).toEqual(stored(f.db));
    // A rating's transaction that fails takes its lines back, the waiting ones too; they still wait.
    startMerge(f.root);
    f.service.rate(f.id, 3, T0 + 9 * DAY);
    endMerge(f.root);
    failAfterAppend(f.db);
    expect(() => f.service.rate(f.id, 3, T0 + 20 * DAY)).toThrow(/disk is full/);
    expect(logged(f.root).map(([n]) => n)).toEqual([0, 1, 2]);
    healed(f.db);
    f.service.rate(f.id, 3, T0 + 20 * DAY);
    expect(logged(f.root)).toEqual(stored(f.db));
    expect(logged(f.root).map(([n]) => n)).toEqual([0, 1, 2, 3, 4]);
    expect(reps(f.db)).toBe(5);
  });
});
