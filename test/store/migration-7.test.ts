// Migration 7 (review_log's uuid as a unique index, not its PRIMARY KEY) on a database that kb
// of migration 6 left: every rating kept with its rowid (kb undo orders by it), uuids still unique.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { withIndexesRebuilt } from '../../src/store/rebuilt-indexes.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const before = ['schema.sql', 'queue-indexes.sql', 'card-actions.sql', 'new-card-order.sql', 'review-events.sql', 'file-warnings.sql'];
const state = JSON.stringify({ due: 1, stability: 1, difficulty: 5, elapsed_days: 0, scheduled_days: 0, learning_steps: 0, reps: 0, lapses: 0, state: 0, last_review: null, suspended: 0, buried_until: null });

describe('migration 7', () => {
  it('keeps every rating and its rowid, and still refuses a second row with one uuid', () => {
    const path = join(tempDir('kb-db-'), 'kb.db');
    const old = new Database(path);
    for (const file of before) old.exec(readFileSync(new URL(`../../src/store/${file}`, import.meta.url), 'utf8'));
    old.pragma(`user_version = ${before.length}`);
    old.prepare(
      `INSERT INTO cards (id, kind, path, line, deck, front, back, full, content_hash, file_size, file_mtime_ms, created_at, updated_at)
       VALUES ('c1', 'card', 'cards/a.md', 1, 'a', 'Q', 'A', 'Q A', 'h', 1, 1, 1, 1)`,
    ).run();
    const insert = old.prepare(
      `INSERT INTO review_log (rowid, uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id) VALUES (?, ?, 'c1', 3, ?, 0, ?, ?, 'd')`,
    );
    // Rowids with a gap (an undo deleted one) and out of uuid order.
    for (const [rowid, uuid, at] of [[1, 'zz', 10], [2, 'aa', 20], [5, 'mm', 30]] as const) insert.run(rowid, uuid, at, state, state);
    old.close();

    const db = openDatabase(path);
    expect(db.prepare('SELECT rowid, uuid, reviewed_at FROM review_log ORDER BY rowid').all()).toEqual([
      { rowid: 1, uuid: 'zz', reviewed_at: 10 },
      { rowid: 2, uuid: 'aa', reviewed_at: 20 },
      { rowid: 5, uuid: 'mm', reviewed_at: 30 },
    ]);
    expect(() => db.prepare(`INSERT INTO review_log (uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id) VALUES ('aa', 'c1', 3, 40, 0, '{}', '{}', 'd')`).run()).toThrow(/UNIQUE/);
    // The uuid's index is one a bulk load may drop and build again (a PRIMARY KEY's cannot be).
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'review_log' AND sql IS NOT NULL ORDER BY name").all();
    expect(indexes).toEqual([{ name: 'review_log_by_card' }, { name: 'review_log_by_time' }, { name: 'review_log_by_uuid' }]);
    expect(() => withIndexesRebuilt(db, ['review_log'], 10_000, () => db.prepare(`INSERT INTO review_log (uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id) VALUES ('zz', 'c1', 3, 50, 0, '{}', '{}', 'd')`).run())).toThrow(/UNIQUE/);
    expect(db.prepare('SELECT count(*) AS n FROM review_log').get()).toEqual({ n: 3 });
    db.close();
  });
});
