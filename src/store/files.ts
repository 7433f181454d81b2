// The `files` table: what kb scan saw of each source file last time it scanned it cleanly.
import type { KbDatabase } from './db.ts';

export interface FileRow {
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  scannedAt: number;
}

interface RawFileRow {
  path: string;
  size: number;
  mtime_ms: number;
  sha256: string;
  scanned_at: number;
}

export function fileQueries(db: KbDatabase) {
  // Raw rows: a warm scan reads every row, and arrays are cheaper to make than objects.
  const all = db.prepare<[], RawFileRow>('SELECT path, size, mtime_ms, sha256, scanned_at FROM files').raw(true);
  const upsert = db.prepare<[string, number, number, string, number]>(
    `INSERT INTO files (path, size, mtime_ms, sha256, scanned_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
       sha256 = excluded.sha256, scanned_at = excluded.scanned_at`,
  );
  const remove = db.prepare<[string]>('DELETE FROM files WHERE path = ?');
  return {
    /** Every file row, by path. */
    all(): Map<string, FileRow> {
      const rows = new Map<string, FileRow>();
      for (const row of all.iterate() as unknown as Iterable<[string, number, number, string, number]>) {
        const [path, size, mtimeMs, sha256, scannedAt] = row;
        rows.set(path, { path, size, mtimeMs, sha256, scannedAt });
      }
      return rows;
    },
    upsert(row: FileRow): void {
      upsert.run(row.path, row.size, row.mtimeMs, row.sha256, row.scannedAt);
    },
    remove(path: string): void {
      remove.run(path);
    },
  };
}

export type FileQueries = ReturnType<typeof fileQueries>;
