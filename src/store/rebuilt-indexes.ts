// Loading many rows into an empty table: its secondary indexes are dropped first and built
// again after, as one sort each, where kept they would take every row in random key order
// (100,000 review events with random UUID ids: 1.5 s stored with the indexes in place, 0.75 s
// stored and indexed after). The index definitions are read back from the schema, so they
// stay written once, in the migrations.
import type { KbDatabase } from './db.ts';

/** Below this many rows, dropping and creating the indexes costs more than it saves. */
const REBUILD_FROM_ROWS = 5_000;

/**
 * Runs `load`, which stores about `rows` rows, with the indexes of `tables` dropped, then creates
 * them again, in one savepoint: if `load` (or an index, a unique one meeting a duplicate) throws,
 * the indexes are as they were.
 */
export function withIndexesRebuilt<T>(db: KbDatabase, tables: readonly string[], rows: number, load: () => T): T {
  if (rows < REBUILD_FROM_ROWS) return load();
  const indexes = db
    .prepare<string[], { name: string; sql: string }>(
      // sql IS NULL: a PRIMARY KEY's or UNIQUE constraint's own index, which cannot be dropped.
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${tables.map(() => '?').join(', ')})`,
    )
    .all(...tables);
  return db.transaction(() => {
    for (const { name } of indexes) db.exec(`DROP INDEX "${name.replaceAll('"', '""')}"`);
    const result = load();
    for (const { sql } of indexes) db.exec(sql);
    return result;
  })();
}
