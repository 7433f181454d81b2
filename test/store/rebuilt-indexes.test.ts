// Bulk loads drop a table's indexes and build them again after: the schema must come back
// exactly as it was, and as it was before when the load fails.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withIndexesRebuilt } from '../../src/store/rebuilt-indexes.ts';
import type { KbDatabase } from '../../src/store/db.ts';

const ROWS = 6_000; // above the size from which the indexes are rebuilt

function database(): KbDatabase {
  const db = new Database(':memory:') as KbDatabase;
  db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, card TEXT NOT NULL, at INTEGER NOT NULL) STRICT;
           CREATE UNIQUE INDEX t_by_card_at ON t (card, at);
           CREATE INDEX "t ""quoted""" ON t (at) WHERE at > 0;`);
  return db;
}

const schema = (db: KbDatabase) => db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").all();
const insertRows = (db: KbDatabase, count: number, offset = 0) => {
  const insert = db.prepare('INSERT INTO t (id, card, at) VALUES (?, ?, ?)');
  for (let i = 0; i < count; i++) insert.run(`id-${offset + i}`, `card-${(offset + i) % 7}`, offset + i);
};

describe('withIndexesRebuilt', () => {
  it('loads with the indexes dropped and leaves the schema and its constraints as they were', () => {
    const db = database();
    const before = schema(db);
    let indexesDuringLoad = -1;
    withIndexesRebuilt(db, ['t'], ROWS, () => {
      indexesDuringLoad = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").get() as { n: number }).n;
      insertRows(db, ROWS);
    });
    expect(indexesDuringLoad).toBe(0);
    expect(schema(db)).toEqual(before);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(() => db.prepare('INSERT INTO t VALUES (?, ?, ?)').run('new', 'card-0', 0)).toThrow(/UNIQUE constraint failed: t.card, t.at/);
  });

  it('keeps the indexes for a small load', () => {
    const db = database();
    let indexesDuringLoad = -1;
    withIndexesRebuilt(db, ['t'], 10, () => {
      indexesDuringLoad = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").get() as { n: number }).n;
    });
    expect(indexesDuringLoad).toBe(2);
  });

  it('puts the indexes and the rows back when the load throws, or when an index meets a duplicate', () => {
    const db = database();
    insertRows(db, 3);
    const before = schema(db);
    expect(() =>
      withIndexesRebuilt(db, ['t'], ROWS, () => {
        insertRows(db, ROWS, 3);
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
    expect(schema(db)).toEqual(before);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 3 });
    // A duplicate (card, at) goes in while the unique index is away; building it again refuses.
    expect(() => withIndexesRebuilt(db, ['t'], ROWS, () => db.prepare('INSERT INTO t VALUES (?, ?, ?)').run('dup', 'card-0', 0))).toThrow(/UNIQUE constraint failed/);
    expect(schema(db)).toEqual(before);
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 3 });
  });
});
