import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deviceId, keepDeviceOnItsMachine, machineFingerprint, NewerDatabaseError, openDatabase, schemaVersion } from '../../src/store/db.ts';

const tempDb = () => join(mkdtempSync(join(tmpdir(), 'kb-db-')), 'sub', 'kb.db');

/** A card row with only the required columns, straight through SQL (the constraints are under test). */
function insertCard(db: Database.Database, id: string, kind: 'note' | 'card', path: string, line: number): void {
  db.prepare(
    `INSERT INTO cards (id, kind, path, line, deck, front, back, full, content_hash, file_size, file_mtime_ms, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'a', 'Q', 'A', 'A', 'h', 1, 1, 1, 1)`,
  ).run(id, kind, path, line);
}

/** One review_log row, straight through SQL. */
function insertRating(db: Database.Database, uuid: string, cardId: string, rating: number, durationMs: number): void {
  db.prepare(
    `INSERT INTO review_log (uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id)
     VALUES (?, ?, ?, 1, ?, '{}', '{}', 'd')`,
  ).run(uuid, cardId, rating, durationMs);
}

describe('a device id stays on its machine', () => {
  it('is kept where it was made, and replaced when the database is opened on another machine (a copied folder)', () => {
    const path = tempDb();
    const first = openDatabase(path);
    const id = deviceId(first);
    first.close();
    const again = openDatabase(path);
    expect(deviceId(again)).toBe(id);
    // The same file, as if copied to another machine.
    keepDeviceOnItsMachine(again, 'machine-id:another');
    const moved = deviceId(again);
    expect(moved).not.toBe(id);
    keepDeviceOnItsMachine(again, 'machine-id:another');
    expect(deviceId(again)).toBe(moved);
    again.close();
    // Back on this machine it is another copy again: a new id, never the old one reused.
    const back = openDatabase(path);
    expect([id, moved]).not.toContain(deviceId(back));
    expect(machineFingerprint()).toMatch(/^(machine-id|host):./);
    back.close();
  });

  it('a database from before machines were recorded keeps its id where it is first opened', () => {
    const path = tempDb();
    const db = openDatabase(path);
    const id = deviceId(db);
    db.prepare("DELETE FROM meta WHERE key = 'device_machine'").run();
    db.close();
    const reopened = openDatabase(path);
    expect(deviceId(reopened)).toBe(id);
    reopened.close();
  });
});

describe('openDatabase', () => {
  it('creates the schema, WAL, foreign keys and a device id', () => {
    const path = tempDb();
    const db = openDatabase(path);
    expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(['card_actions', 'cards', 'files', 'fsrs', 'lab_runs', 'meta', 'quiz_results', 'replay_pending', 'review_events', 'review_log', 'review_log_files']);
    expect(deviceId(db)).toMatch(/^[0-9a-f-]{36}$/);
    db.close();
  });

  it('opens an existing database without migrating again and keeps its device id', () => {
    const path = tempDb();
    const first = openDatabase(path);
    const id = deviceId(first);
    first.close();
    const second = openDatabase(path);
    expect(deviceId(second)).toBe(id);
    second.close();
  });

  it('brings a database of migration 1 up to date, rows kept: the queue indexes are added', () => {
    const path = tempDb();
    mkdirSync(dirname(path), { recursive: true });
    const old = new Database(path);
    old.exec(readFileSync(new URL('../../src/store/schema.sql', import.meta.url), 'utf8'));
    old.pragma('user_version = 1');
    insertCard(old, 'c1', 'note', 'notes/a.md', 1);
    old.prepare("INSERT INTO fsrs (card_id, due, stability, difficulty, state) VALUES ('c1', 5, 0, 0, 2)").run();
    old.close();
    const db = openDatabase(path);
    expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion);
    const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND name IN ('fsrs_queue', 'cards_orphaned', 'cards_new_order') ORDER BY name").pluck().all();
    expect(indexes).toEqual(['cards_new_order', 'cards_orphaned', 'fsrs_queue']);
    expect(db.prepare('SELECT card_id, due, state FROM fsrs').all()).toEqual([{ card_id: 'c1', due: 5, state: 2 }]);
    db.close();
  });

  it('refuses a database from a newer kb', () => {
    const path = tempDb();
    openDatabase(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${schemaVersion + 1}`);
    raw.close();
    expect(() => openDatabase(path)).toThrow(NewerDatabaseError);
  });

  it('has strict tables: a wrong type is refused', () => {
    const db = openDatabase(':memory:');
    expect(() =>
      db.prepare("INSERT INTO files (path, size, mtime_ms, sha256, scanned_at) VALUES ('a', 'big', 1, 'x', 1)").run(),
    ).toThrow(/cannot store TEXT value in INTEGER column/);
    db.close();
  });

  it('cascades a deleted card to its schedule and history', () => {
    const db = openDatabase(':memory:');
    insertCard(db, 'c1', 'note', 'notes/a.md', 1);
    db.prepare("INSERT INTO fsrs (card_id, due, stability, difficulty) VALUES ('c1', 0, 0, 0)").run();
    insertRating(db, 'u1', 'c1', 3, 1000);
    expect(() => insertRating(db, 'u2', 'missing', 3, 1000)).toThrow(/FOREIGN KEY/);
    db.prepare("DELETE FROM cards WHERE id = 'c1'").run();
    expect(db.prepare('SELECT count(*) FROM fsrs').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM review_log').pluck().get()).toBe(0);
    db.close();
  });

  it('checks ratings, states and JSON columns', () => {
    const db = openDatabase(':memory:');
    insertCard(db, 'c1', 'card', 'cards/a.md', 3);
    expect(() => db.prepare("INSERT INTO fsrs (card_id, due, stability, difficulty, state) VALUES ('c1', 0, 0, 0, 4)").run()).toThrow(/CHECK/);
    expect(() => insertRating(db, 'u', 'c1', 5, 1)).toThrow(/CHECK/);
    expect(() => db.prepare("UPDATE cards SET tags = 'not json' WHERE id = 'c1'").run()).toThrow(/CHECK/);
    db.close();
  });

  it('lets two connections create one database at once without running the migration twice', () => {
    const path = tempDb();
    const a = openDatabase(path);
    const b = openDatabase(path);
    // device_id, created_at and the machine the device id belongs to, once each.
    expect(b.prepare('SELECT key FROM meta ORDER BY key').pluck().all()).toEqual(['created_at', 'device_id', 'device_machine']);
    a.close();
    b.close();
  });
});
