// Opens kb's SQLite database and brings its schema up to date.
// Migrations are numbered by position: schema.sql is migration 1; a later change to the
// data model appends a file and a line to `migrations`, never edits an applied one.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { accessSync, closeSync, constants, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { makeFolders } from '../model/make-folders.ts';

export type KbDatabase = Database.Database;

const migrationFiles = ['./schema.sql', './queue-indexes.sql', './card-actions.sql', './new-card-order.sql', './review-events.sql', './file-warnings.sql', './review-log-keys.sql', './review-events-state.sql'];
const migrations: Array<() => string> = migrationFiles.map((file) => () => readFileSync(new URL(file, import.meta.url), 'utf8'));

/** The schema version this kb writes; `PRAGMA user_version` of an up-to-date database. */
export const schemaVersion = migrations.length;

export class NewerDatabaseError extends Error {
  constructor(path: string, found: number) {
    super(`${path}: database schema version ${found} is newer than this kb understands (${schemaVersion}); update kb`);
    this.name = 'NewerDatabaseError';
  }
}

/**
 * Opens (creating when missing) the database at `path`: WAL so readers never block the
 * writer, a busy timeout so two kb processes wait for each other instead of failing, and
 * foreign keys on (SQLite's default is off).
 *
 * A database that exists but cannot be written (its file system mounted read-only, or its file
 * or folder without write permission) is opened read-only instead (`db.readonly` is true), so
 * that the commands that only read still work; every write to it fails with SQLITE_READONLY.
 */
export function openDatabase(path: string): KbDatabase {
  if (path !== ':memory:') {
    makeFolders(dirname(path));
    if (existsSync(path) && cannotWrite(path) !== null) return openReadOnly(path);
  }
  const db = new Database(path);
  try {
    db.pragma('busy_timeout = 5000');
    // Before anything is written (WAL mode included): a database of another program is refused.
    refuseForeignDatabase(db, path);
    if (path !== ':memory:' && db.pragma('journal_mode', { simple: true }) !== 'wal') setJournalMode(db, 'wal');
    db.pragma('foreign_keys = ON');
    migrate(db, path);
    if (path !== ':memory:') keepDeviceOnItsMachine(db, machineFingerprint());
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Whether the file at `path` starts as every SQLite database does ("SQLite format 3\0"); false when it cannot be read. */
export function hasSqliteHeader(path: string): boolean {
  const header = Buffer.alloc(16);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    return readSync(fd, header, 0, 16, 0) === 16 && header.toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A SQLite database kb did not make: KB_DB named another program's file, which kb must not change. */
export class ForeignDatabaseError extends Error {
  constructor(path: string, tables: string[]) {
    const shown = tables.length > 3 ? `${tables.slice(0, 3).join(', ')}, …` : tables.join(', ');
    super(`database ${path}: a SQLite database of another program (tables ${shown}), not kb's; kb changed nothing in it: set KB_DB to a new file's path, or unset it`);
    this.name = 'ForeignDatabaseError';
  }
}

/**
 * kb's migrations start from schema version 0 and an empty file. A version-0 database that
 * already holds tables is some other program's (KB_DB=~/.../places.sqlite, a slip): kb used to
 * add its tables to it and switch it to WAL mode. Every kb database past its first migration
 * has a version above 0 (the migration and the version are one transaction).
 */
function refuseForeignDatabase(db: KbDatabase, path: string): void {
  if (path === ':memory:' || readVersion(db) !== 0) return;
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);
  if (tables.length > 0) throw new ForeignDatabaseError(path, tables);
}

/**
 * Sets the journal mode; false when another connection keeps SQLite from changing it
 * (SQLITE_BUSY). A kb that opens the database while another fills it in rollback mode
 * (store/scratch-build.ts, which puts WAL back when done) cannot put it in WAL mode: it then
 * works in rollback mode, waiting for that writer's lock as for any.
 */
export function setJournalMode(db: KbDatabase, mode: 'delete' | 'wal'): boolean {
  try {
    return db.pragma(`journal_mode = ${mode.toUpperCase()}`, { simple: true }) === mode;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw error;
  }
}

/**
 * Why kb cannot write the database at `path` (or the -wal and -shm files SQLite makes beside
 * it): the errno of the check (EROFS: a read-only file system; EACCES: no permission), or null
 * when it can.
 */
export function cannotWrite(path: string): string | null {
  for (const target of existsSync(path) ? [path, dirname(path)] : [dirname(path)]) {
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code ?? 'EACCES';
    }
  }
  return null;
}

/** The database opened read-only; a database from an older kb cannot be brought up to date so, and says why. */
function openReadOnly(path: string): KbDatabase {
  const db = readOnlyConnection(path);
  try {
    db.pragma('foreign_keys = ON');
    const found = readVersion(db);
    if (found > schemaVersion) throw new NewerDatabaseError(path, found);
    if (found < schemaVersion) throw new ReadOnlyDatabaseError(`${path}: database schema version ${found} needs an upgrade to ${schemaVersion}, which writes it`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function readOnlyConnection(path: string): KbDatabase {
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      readVersion(db); // opens the file (and the WAL's -shm) now, not at the command's first query
      db.pragma('busy_timeout = 5000');
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_CANTOPEN') throw error;
    // A WAL database whose folder cannot be written and that has no -shm file (a clean close
    // removed it): SQLite can read it only as `immutable=1`, a URI this build of better-sqlite3
    // does not take (SQLITE_USE_URI=0). The same bytes read into memory stand in, read-only. A
    // -wal file with content holds commits the main file lacks: then nothing stands in.
    const wal = `${path}-wal`;
    if (existsSync(wal) && statSync(wal).size > 0) throw error;
    const image = readFileSync(path);
    // Bytes 18 and 19 of the header say WAL (2): SQLite opens a database in memory only in
    // rollback mode (1). The pages are the same; only this copy in memory is changed.
    if (image.length >= 20 && image[18] === 2 && image[19] === 2) image[18] = image[19] = 1;
    return new Database(image, { readonly: true });
  }
}

/** A write a read-only database (see openDatabase) cannot take; said as SQLite says its own. */
export class ReadOnlyDatabaseError extends Error {
  readonly code = 'SQLITE_READONLY';
  constructor(message: string) {
    super(message);
    this.name = 'ReadOnlyDatabaseError';
  }
}

function readVersion(db: KbDatabase): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function migrate(db: KbDatabase, path: string): void {
  const found = readVersion(db);
  if (found > schemaVersion) throw new NewerDatabaseError(path, found);
  if (found === schemaVersion) return;
  // IMMEDIATE takes the write lock first, so two processes creating one database at once
  // run each migration exactly once: the second sees the new version and does nothing.
  db.transaction(() => {
    const current = readVersion(db);
    for (let version = current + 1; version <= schemaVersion; version++) {
      db.exec(migrations[version - 1]());
      db.pragma(`user_version = ${version}`);
    }
    if (current === 0) {
      const insert = db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
      insert.run('device_id', randomUUID());
      insert.run('created_at', String(Date.now()));
    }
  }).immediate();
}

/** The id of this database's device, written into every review log row. */
export function deviceId(db: KbDatabase): string {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'device_id'").get() as { value: string } | undefined;
  if (!row) throw new Error('database has no device_id in meta');
  return row.value;
}

/** This machine: its systemd machine id where there is one (it survives a rename), else its host name. */
export function machineFingerprint(): string {
  try {
    const id = readFileSync('/etc/machine-id', 'utf8').trim();
    if (id !== '') return `machine-id:${id}`;
  } catch {
    // No machine id (macOS, some containers): the host name stands in.
  }
  return `host:${hostname()}`;
}

/**
 * A knowledge base folder copied with its database to another machine (cp -a, a backup
 * restored on a new laptop) would carry the same device id to both: each would append its
 * reviews to one reviews/<device>.jsonl, git would conflict on it, and the two would disagree
 * for good about which lines they had read. The database remembers the machine its device id
 * was made on; opened on another, it takes a new id (a log file of its own). A database from
 * before this was recorded is taken to belong where it is first opened.
 */
export function keepDeviceOnItsMachine(db: KbDatabase, here: string): void {
  const stored = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'device_machine'");
  if (stored.get()?.value === here) return;
  try {
    db.transaction(() => {
      const was = stored.get()?.value;
      if (was === here) return;
      if (was !== undefined) db.prepare("UPDATE meta SET value = ? WHERE key = 'device_id'").run(randomUUID());
      db.prepare("INSERT INTO meta (key, value) VALUES ('device_machine', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(here);
    }).immediate();
  } catch (error) {
    // A database that cannot be written (a read-only file) keeps its id; its commands write nothing anyway.
    if (!(error instanceof Error && /SQLITE_READONLY|SQLITE_CANTOPEN/.test((error as { code?: string }).code ?? ''))) throw error;
  }
}
