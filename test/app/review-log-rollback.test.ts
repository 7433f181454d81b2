// A rating whose transaction fails after its event line was appended (a full disk at the
// commit, say) takes the line back: "rolled back" is then true of the log file too, and the
// next start does not apply a rating the user was told failed (a retry would rate twice).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase } from '../../src/store/db.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import { syncReviewLogs } from '../../src/app/review-log/open-review-log.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const NOTE = "---\ncreated: '2025-10-19'\nreview_count: 0\n---\n# What is TTFT?\n\n## Answer\n\nTime to the first token.\n";

async function fixture() {
  const root = tempDir('kb-rollback-');
  mkdirSync(join(root, 'notes'), { recursive: true });
  writeFileSync(join(root, 'notes/ttft.md'), NOTE);
  mkdirSync(join(root, '.kb'));
  const dbPath = join(root, '.kb/kb.db');
  const db = openDatabase(dbPath);
  const target = { root, db, writable: true, config: defaultConfig };
  await scanKnowledgeBase(target, { now: Date.UTC(2026, 0, 1) });
  const id = (db.prepare('SELECT id FROM cards').get() as { id: string }).id;
  const service = new ReviewService(target);
  return { root, db, dbPath, target, id, service };
}

/** Every write of the log offset fails, as a full disk would: the append has happened by then. */
function failAfterAppend(db: ReturnType<typeof openDatabase>): void {
  for (const when of ['INSERT', 'UPDATE']) {
    db.exec(`CREATE TRIGGER full_${when} BEFORE ${when} ON review_log_files BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
  }
}

function events(db: ReturnType<typeof openDatabase>): number {
  return (db.prepare('SELECT count(*) AS n FROM review_events').get() as { n: number }).n;
}

describe('a failed transaction that appended to the review log', () => {
  it('cuts the line off again, so the rating is not applied at the next start', async () => {
    const f = await fixture();
    f.service.rate(f.id, 3, Date.UTC(2026, 0, 2, 12));
    const logs = readFileSync(join(f.root, 'reviews', readdirOne(f.root)), 'utf8');
    failAfterAppend(f.db);
    expect(() => f.service.rate(f.id, 1, Date.UTC(2026, 0, 3, 12))).toThrow(/disk is full/);
    expect(readFileSync(join(f.root, 'reviews', readdirOne(f.root)), 'utf8')).toBe(logs);
    expect(() => f.service.act(f.id, 'suspend', Date.UTC(2026, 0, 3, 12))).toThrow(/disk is full/);
    expect(readFileSync(join(f.root, 'reviews', readdirOne(f.root)), 'utf8')).toBe(logs);
    f.db.exec('DROP TRIGGER full_INSERT; DROP TRIGGER full_UPDATE');
    f.db.close();
    // The next start reads the log: one rating, as the database says.
    const db = openDatabase(f.dbPath);
    syncReviewLogs({ ...f.target, db });
    expect(events(db)).toBe(1);
    expect((db.prepare('SELECT reps, suspended FROM fsrs').get() as { reps: number; suspended: number })).toEqual({ reps: 1, suspended: 0 });
    db.close();
  });

  it('removes the log file its append created', async () => {
    const f = await fixture();
    failAfterAppend(f.db);
    expect(() => f.service.rate(f.id, 3, Date.UTC(2026, 0, 2, 12))).toThrow(/disk is full/);
    expect(readdirOneOrNull(f.root)).toBeNull();
  });
});

function readdirOneOrNull(root: string): string | null {
  const names = readdirSyncSafe(join(root, 'reviews')).filter((name) => name.endsWith('.jsonl'));
  return names.length === 0 ? null : names[0];
}

function readdirOne(root: string): string {
  const name = readdirOneOrNull(root);
  if (name === null) throw new Error('no log file');
  return name;
}

function readdirSyncSafe(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
