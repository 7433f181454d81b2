// What kb review's status line says when a rating's write-back is refused: the reason, that
// the rating stands, and how the note gets its fields. It said only "note not updated:
// notes/a.md: cannot read it (ENOENT)" for a note renamed while the screen showed it (found as
// a user), with no word that the rating was kept or that kb doctor --fix writes the note later.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/kb/config.ts';
import { scanKnowledgeBase } from '../../src/app/scan/scan-kb.ts';
import { openDatabase } from '../../src/store/db.ts';
import { ReviewRun } from '../../src/app/review/review-run.ts';
import { ReviewService } from '../../src/app/review/review-service.ts';
import { refusedWritebackNote } from '../../src/kb/writeback.ts';
import { tempDir } from '../helpers/kb-cli.ts';
import { FakeLabs } from '../ui/fake-labs.ts';

const START = new Date(2026, 2, 10, 6).getTime();

describe('kb review: a refused write-back', () => {
  it('a note renamed while shown: kb review does not rate it (it is met again where it went: review-run-outside-edit.test.ts); kb rate stores the rating, and says the next kb command that scans writes it where the note went', async () => {
    const root = tempDir('kb-writeback-');
    mkdirSync(join(root, 'notes'), { recursive: true });
    writeFileSync(join(root, 'notes/a.md'), "---\ncreated: '2026-03-01'\nreview_count: 0\n---\n# Renamed while shown?\n\n## Answer\n\nYes.\n");
    const db = openDatabase(':memory:');
    await scanKnowledgeBase({ root, db, writable: true, config: defaultConfig }, { now: START });
    const service = new ReviewService({ root, db, writable: true, config: defaultConfig });
    const run = new ReviewRun(service, root, {}, { rescan: async () => [], editor: 'vi', writable: true, startedAt: START, labs: new FakeLabs() });
    const shown = run.next(START);
    expect(shown.kind).toBe('card');
    if (shown.kind !== 'card') return;
    renameSync(join(root, 'notes/a.md'), join(root, 'notes/b.md'));
    expect(run.rate(shown.card.id, 3, START + 5_000, 5_000).message).toBe('not rated: notes/a.md was moved or deleted since shown');
    expect((db.prepare('SELECT count(*) AS n FROM review_log').get() as { n: number }).n).toBe(0);
    // kb rate (the service) has no screen to show it again: the rating is stored, and its note is
    // written by the next scan that finds where it went (write-faults.test.ts).
    const rated = service.rate(shown.card.id, 3, START + 5_000, 5_000);
    expect(rated.writeback).toMatchObject({ status: 'refused', reason: 'notes/a.md: moved or deleted since kb read it (ENOENT)' });
    if (rated.writeback?.status !== 'refused') return;
    expect(refusedWritebackNote(rated.writeback, 'rating')).toBe('the rating is stored (the next kb command that scans writes the fields where the note went)');
    expect((db.prepare('SELECT count(*) AS n FROM review_log').get() as { n: number }).n).toBe(1);
  });
});
