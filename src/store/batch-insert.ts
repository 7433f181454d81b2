// Many rows to one INSERT statement. Run one row at a time, a bulk insert of narrow rows spends a
// large share of each on the statement itself (SQLite opens the table's and indexes' cursors and
// seeks them from the root again; better-sqlite3 crosses into C and back): a clone's first open
// of a long review log stores every event. (Wide rows gain nothing: see review_log's insert.)
import type { Statement } from 'better-sqlite3';
import type { KbDatabase } from './db.ts';

export interface BatchInsert<Result> {
  /** Rows one statement takes at most. */
  readonly rows: number;
  /** Inserts the rows whose values, `width` to a row, are `values` in order (`rows` rows at most). */
  run(values: readonly unknown[]): Result[];
}

/**
 * `INSERT ... VALUES <tuple>, <tuple>, ... <tail>` for 1 to `rows` tuples, each prepared when
 * first needed. `width` is the tuple's parameter count; `rows` times it stays under SQLite's
 * 32,766 parameters. SQLite stores the rows in the order they are listed.
 */
export function batchInsert<Result = never>(db: KbDatabase, head: string, width: number, rows: number, tail = ''): BatchInsert<Result> {
  const tuple = `(${Array(width).fill('?').join(', ')})`;
  const statements = new Map<number, Statement<unknown[], Result>>();
  return {
    rows,
    run(values) {
      const count = values.length / width;
      let statement = statements.get(count);
      if (statement === undefined) {
        statement = db.prepare<unknown[], Result>(`${head} VALUES ${Array(count).fill(tuple).join(', ')} ${tail}`);
        statements.set(count, statement);
      }
      // Spread, not an array: better-sqlite3 reads an array's elements one N-API call each.
      if (statement.reader) return statement.all(...values);
      statement.run(...values);
      return [];
    },
  };
}
