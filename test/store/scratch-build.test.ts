// A database filled from nothing (store/scratch-build.ts) is written in a rollback journal with
// its CHECKs off, then put back in WAL mode: a crash in the middle leaves it as it was before,
// another connection keeps it in WAL, and a kb that opens it meanwhile still opens.
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type KbDatabase } from '../../src/store/db.ts';
import { withScratchBuild } from '../../src/store/scratch-build.ts';
import { tempDir } from '../helpers/kb-cli.ts';

const journalMode = (db: KbDatabase) => db.pragma('journal_mode', { simple: true });

/** Many wide rows into meta, in the caller's transaction. */
function fill(db: KbDatabase, rows: number): void {
  const insert = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
  for (let i = 0; i < rows; i++) insert.run(`bulk-${i}`, 'x'.repeat(400));
}

const bulkRows = (db: KbDatabase) => (db.prepare("SELECT count(*) AS n FROM meta WHERE key LIKE 'bulk-%'").get() as { n: number }).n;

describe('a scratch build', () => {
  it('runs in a rollback journal without CHECKs, then puts WAL and the CHECKs back', () => {
    const path = join(tempDir('kb-scratch-'), 'kb.db');
    const db = openDatabase(path);
    const seen = withScratchBuild(db, () =>
      db.transaction(() => {
        fill(db, 100);
        // A CHECK (state IN 0-3) not enforced during the build, as SQLite's pragma says.
        db.prepare("INSERT INTO cards (id, kind, path, line, deck, front, back, full, content_hash, file_size, file_mtime_ms, created_at, updated_at) VALUES ('c', 'card', 'a.md', 1, 'a', 'Q', 'A', 'A', 'h', 1, 1, 1, 1)").run();
        db.prepare('INSERT INTO fsrs (card_id, due, stability, difficulty, state) VALUES (?, 0, 0, 0, 7)').run('c');
        db.prepare('DELETE FROM fsrs').run();
        return { mode: journalMode(db), journal: existsSync(`${path}-journal`) };
      }).immediate(),
    );
    expect(seen).toEqual({ mode: 'delete', journal: true });
    expect(journalMode(db)).toBe('wal');
    expect(existsSync(`${path}-journal`)).toBe(false);
    expect(() => db.prepare('INSERT INTO fsrs (card_id, due, stability, difficulty, state) VALUES (?, 0, 0, 0, 7)').run('c')).toThrow(/CHECK constraint failed/);
    expect(bulkRows(db)).toBe(100);
    db.close();
  });

  it('killed in the middle, leaves the database as it was: the next open rolls the journal back and puts WAL back', () => {
    const folder = tempDir('kb-scratch-');
    const path = join(folder, 'kb.db');
    const db = openDatabase(path);
    db.prepare("INSERT INTO meta (key, value) VALUES ('before', 'kept')").run();
    const size = statSync(path).size;
    const crashed = join(folder, 'crashed');
    mkdirSync(crashed);
    expect(() =>
      withScratchBuild(db, () =>
        db.transaction(() => {
          // A small page cache: the pages spill into the database file before the commit.
          db.pragma('cache_size = 20');
          fill(db, 5_000);
          expect(statSync(path).size).toBeGreaterThan(size);
          // The files as a kill -9 (or a power cut after the journal's sync) would leave them.
          copyFileSync(path, join(crashed, 'kb.db'));
          copyFileSync(`${path}-journal`, join(crashed, 'kb.db-journal'));
          throw new Error('killed');
        }).immediate(),
      ),
    ).toThrow('killed');
    db.close();
    const reopened = openDatabase(join(crashed, 'kb.db'));
    expect(journalMode(reopened)).toBe('wal');
    expect(existsSync(join(crashed, 'kb.db-journal'))).toBe(false);
    expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(bulkRows(reopened)).toBe(0);
    expect(reopened.prepare("SELECT value FROM meta WHERE key = 'before'").pluck().get()).toBe('kept');
    reopened.close();
  });

  it('stays in WAL mode while another connection has the database open', () => {
    const path = join(tempDir('kb-scratch-'), 'kb.db');
    const db = openDatabase(path);
    const other = openDatabase(path);
    const mode = withScratchBuild(db, () =>
      db.transaction(() => {
        fill(db, 100);
        return journalMode(db);
      }).immediate(),
    );
    expect(mode).toBe('wal');
    expect(bulkRows(other)).toBe(100);
    other.close();
    db.close();
  });

  it('lets a kb open the database while it runs: that one waits in rollback mode, and WAL is back after', () => {
    const path = join(tempDir('kb-scratch-'), 'kb.db');
    const db = openDatabase(path);
    const other = withScratchBuild(db, () =>
      db.transaction(() => {
        fill(db, 100);
        // SQLite will not switch the database to WAL under the build's lock: openDatabase goes on without.
        const opened = openDatabase(path);
        expect(journalMode(opened)).toBe('delete');
        expect(bulkRows(opened)).toBe(0);
        return opened;
      }).immediate(),
    );
    expect(journalMode(db)).toBe('wal');
    // The other connection finds WAL mode at its next read.
    expect(bulkRows(other)).toBe(100);
    expect(journalMode(other)).toBe('wal');
    other.close();
    db.close();
  });
});

describe('a scratch build inside a transaction', () => {
  it('keeps the journal mode it finds (SQLite cannot change it there), and still turns the CHECKs off and on', () => {
    const path = join(tempDir('kb-scratch-'), 'kb.db');
    const db = openDatabase(path);
    const mode = db.transaction(() => withScratchBuild(db, () => db.transaction(() => journalMode(db))()))();
    expect(mode).toBe('wal');
    expect(() => db.prepare('INSERT INTO fsrs (card_id, due, stability, difficulty, state) VALUES (?, 0, 0, 0, 7)').run('c')).toThrow(/CHECK constraint failed/);
    db.close();
  });
});
