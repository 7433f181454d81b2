// Whether a lab run has been stored yet: a test that stops a run mid-way waits for its row (a
// run prints nothing on a pipe before it ends, so its row is the sign that it has started).
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

export function labRunStored(dbPath: string): boolean {
  if (!existsSync(dbPath)) return false;
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM lab_runs').get() as { n: number }).n > 0;
  } catch {
    return false; // the schema is still being made
  } finally {
    db.close();
  }
}
