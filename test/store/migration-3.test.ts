// Migration 3 (card actions, leeches) on a database that kb of migration 2 left.
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion } from '../../src/store/db.ts';
import { tempDir } from '../helpers/kb-cli.ts';

describe('migration 3', () => {
  it('adds card_actions and the leech flag (0) and keeps every row', () => {
    const dir = tempDir('kb-db-');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'kb.db');
    const old = new Database(path);
    for (const file of ['schema.sql', 'queue-indexes.sql']) old.exec(readFileSync(new URL(`../../src/store/${file}`, import.meta.url), 'utf8'));
    old.pragma('user_version = 2');
    old.prepare(
      `INSERT INTO cards (id, kind, path, line, deck, front, back, full, content_hash, file_size, file_mtime_ms, created_at, updated_at)
       VALUES ('c1', 'card', 'cards/a.md', 1, 'a', 'Q', 'A', 'Q A', 'h', 1, 1, 1, 1)`,
    ).run();
    old.prepare("INSERT INTO fsrs (card_id, due, stability, difficulty, state, suspended) VALUES ('c1', 5, 2, 3, 2, 1)").run();
    old.close();
    const db = openDatabase(path);
    expect(schemaVersion).toBeGreaterThanOrEqual(3);
    expect(db.prepare('SELECT card_id, due, state, suspended, leech FROM fsrs').all()).toEqual([{ card_id: 'c1', due: 5, state: 2, suspended: 1, leech: 0 }]);
    expect(db.prepare('SELECT count(*) AS n FROM card_actions').get()).toEqual({ n: 0 });
    expect(() => db.prepare("UPDATE fsrs SET leech = 2 WHERE card_id = 'c1'").run()).toThrow(/CHECK/);
    db.close();
  });
});
