// The `files` table: what kb scan saw of each source file last time it scanned it cleanly.
import type { FileStamp } from '../model/knowledge-base.ts';
import type { KbDatabase } from './db.ts';

export interface FileRow {
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  scannedAt: number;
  /** The warnings of the file's last parse, as JSON (null: none); upsert leaves them as they are. */
  warnings?: string | null;
}

interface RawFileRow {
  path: string;
  size: number;
  mtime_ms: number;
  sha256: string;
  scanned_at: number;
}

/** The kb.json settings that change how a file reads (which key holds a note's id; which folders hold notes, and so its deck). */
export type ReadSetting = 'id_key' | 'notes_folders';

export function fileQueries(db: KbDatabase) {
  // Raw rows: a warm scan reads every row, and arrays are cheaper to make than objects.
  const all = db.prepare<[], RawFileRow>('SELECT path, size, mtime_ms, sha256, scanned_at, warnings FROM files').raw(true);
  const setWarnings = db.prepare<[string | null, string]>('UPDATE files SET warnings = ? WHERE path = ?');
  const upsert = db.prepare<[string, number, number, string, number]>(
    `INSERT INTO files (path, size, mtime_ms, sha256, scanned_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
       sha256 = excluded.sha256, scanned_at = excluded.scanned_at`,
  );
  const remove = db.prepare<[string]>('DELETE FROM files WHERE path = ?');
  const any = db.prepare<[], { scanned: number }>('SELECT EXISTS (SELECT 1 FROM files) AS scanned');
  const stamp = db.prepare<[string], { size: number; mtimeMs: number }>('SELECT size, mtime_ms AS mtimeMs FROM files WHERE path = ?');
  const followFile = db.prepare<[number, number, string, string, number, number, string]>(
    'UPDATE files SET size = ?, mtime_ms = ?, sha256 = ? WHERE path = ? AND size = ? AND mtime_ms = ? AND sha256 = ?',
  );
  // The kb.json settings the files were read with (idKey, notesFolders): a scan under others reads them all again.
  const settingRow = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const setSetting = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
  const followCards = db.prepare<[number, number, string, number, number]>(
    'UPDATE cards SET file_size = ?, file_mtime_ms = ? WHERE path = ? AND file_size = ? AND file_mtime_ms = ?',
  );
  return {
    /** Every file row, by path. */
    all(): Map<string, FileRow> {
      const rows = new Map<string, FileRow>();
      for (const row of all.iterate() as unknown as Iterable<[string, number, number, string, number, string | null]>) {
        const [path, size, mtimeMs, sha256, scannedAt, warnings] = row;
        rows.set(path, { path, size, mtimeMs, sha256, scannedAt, warnings });
      }
      return rows;
    },
    upsert(row: FileRow): void {
      upsert.run(row.path, row.size, row.mtimeMs, row.sha256, row.scannedAt);
    },
    /** The warnings the file's parse just gave (JSON, or null for none), said again while it stays unchanged. */
    setWarnings(path: string, warnings: string | null): void {
      setWarnings.run(warnings, path);
    },
    /** The kb.json setting the recorded files were read with, as text; undefined when no scan recorded it (a database older than the record). */
    readWith(setting: ReadSetting): string | undefined {
      return settingRow.get(`scan_${setting}`)?.value;
    },
    setReadWith(setting: ReadSetting, value: string): void {
      setSetting.run(`scan_${setting}`, value);
    },
    /** Whether any file was ever scanned into this database. */
    any(): boolean {
      return any.get()?.scanned === 1;
    },
    /** The size and mtime (ms, truncated) the last scan recorded of `path`; undefined when it has no row. */
    stamp(path: string): { size: number; mtimeMs: number } | undefined {
      return stamp.get(path);
    },
    remove(path: string): void {
      remove.run(path);
    },
    /**
     * kb itself rewrote `path` (write-back of review fields, which no card's content
     * depends on): if the scan's record was of the file as it stood before, it now records
     * the new file, so the next scan does not read and parse it again. A file the user
     * changed since the last scan keeps its old record, and the next scan parses it.
     */
    followRewrite(path: string, before: FileStamp, after: FileStamp): void {
      const [beforeMs, afterMs] = [Math.trunc(before.mtimeMs), Math.trunc(after.mtimeMs)];
      db.transaction(() => {
        if (followFile.run(after.size, afterMs, after.sha256, path, before.size, beforeMs, before.sha256).changes === 1) {
          followCards.run(after.size, afterMs, path, before.size, beforeMs);
        }
      })();
    },
  };
}

export type FileQueries = ReturnType<typeof fileQueries>;
