// A SQLite fault (a full disk, a read-only mount, a database another process holds) in one
// line naming the database and what to do: kb's last word on a failed command (cli/fault.ts),
// and what the card's lab panel says when a run cannot be stored.
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { isDirectory } from '../model/is-directory.ts';
import { cannotWrite } from './db.ts';

const SQLITE_FAULTS: Array<[prefix: string, what: string]> = [
  ['SQLITE_BUSY', 'another process kept it locked past the 5 s kb waits (another kb, or a tool holding it open); close that and run the command again'],
  ['SQLITE_LOCKED', 'it is locked by another connection; close that and run the command again'],
  ['SQLITE_FULL', 'the disk is full; free some space and run the command again (the change in flight was rolled back)'],
  ['SQLITE_IOERR', 'disk I/O error; check the disk (dmesg), then run kb doctor'],
  ['SQLITE_READONLY', 'it cannot be written (read-only file or file system); make it writable, or set KB_DB to a writable path'],
  ['SQLITE_CANTOPEN', 'it cannot be opened; check that its folder exists and is writable'],
  ['SQLITE_CORRUPT', 'it is damaged; move it aside and the next kb command rebuilds it from the notes and review logs'],
  ['SQLITE_NOTADB', 'it is not a SQLite database; move it aside and the next kb command rebuilds it from the notes and review logs'],
  ['SQLITE_PROTOCOL', 'file locking failed; run the command again'],
];

/** A fault SQLite raised (its codes are SQLITE_*), as opposed to kb's own errors. */
export function isSqliteFault(error: unknown): error is { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_');
}

/** The line for `error` when it is a SQLite fault, else null. `databasePath`: the database it met. */
export function describeSqliteFault(error: unknown, databasePath: string | null): string | null {
  if (!isSqliteFault(error)) return null;
  const code = error.code;
  const known = SQLITE_FAULTS.find(([prefix]) => code.startsWith(prefix));
  const where = `database ${databasePath ?? '(not yet opened)'}`;
  // An I/O error on a full disk is the full disk: even a command that only reads must grow
  // the WAL's shared-memory file when it opens (SQLITE_IOERR_SHMSIZE).
  const full = code.startsWith('SQLITE_IOERR') && databasePath !== null ? freeBytesIfFull(dirname(databasePath)) : null;
  if (full !== null) return `${where}: the disk holding it is full (${full} bytes free); free some space and run the command again (${code})`;
  // "Cannot be opened / written" on a read-only mount is the mount: say so, and what still works there.
  const blocked = (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN')) && databasePath !== null ? cannotWrite(databasePath) : null;
  // A folder where the database file should be (KB_DB=/tmp, a slip): SQLite says only "cannot
  // open", and "check that its folder exists" sent the user looking at the wrong thing. Whatever
  // the code: a folder whose parent kb cannot write (KB_DB=~, under a /home only root writes) is
  // opened read-only, and reading it fails as SQLITE_IOERR_READ, said as a disk to check (dmesg).
  if (databasePath !== null && isDirectory(databasePath)) return `${where}: a folder stands there, not a database file; set KB_DB to a file's path (${code})`;
  if (blocked === 'EROFS') return `${where}: the file system holding it is read-only; remount it read-write to change anything (kb due, cards, stats, export and doctor without --fix only read, and work there) (${code})`;
  return `${where}: ${known ? known[1] : firstLine(error)} (${code})`;
}

/** Below this many free bytes a file system is taken as full: SQLite cannot grow a page or its shared memory. */
const FULL_BELOW_BYTES = 1024 * 1024;

/** The free bytes of the file system holding `folder` when it is (nearly) full, else null (or when that cannot be told). */
function freeBytesIfFull(folder: string): number | null {
  try {
    const stats = statfsSync(folder);
    const free = stats.bavail * stats.bsize;
    return free < FULL_BELOW_BYTES ? free : null;
  } catch {
    return null;
  }
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n')[0];
}
