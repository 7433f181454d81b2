// The last word on an error that reached the top of a command: one line naming the file or
// the database and what to do, never a stack trace (KB_DEBUG=1 adds it, for kb's developers).
// A mistake in the user's input is a UserError and says so itself; a fault of the machine (a
// full disk, a read-only mount, a database another process holds) is explained here; anything
// else is a bug in kb, said as such.
import { sep } from 'node:path';
import { describeFsFault, isFsFault } from '../kb/fs-fault.ts';
import { describeSqliteFault } from '../store/sqlite-fault.ts';
import { fittedToStderr } from './terminal-output.ts';

/** The database the command opened, so a SQLite fault can name it (SQLite's errors do not). */
let databasePath: string | null = null;

export function noteDatabasePath(path: string): void {
  databasePath = path;
}

/**
 * One line for an error that is not the user's: a fault of the machine, or a bug in kb.
 * `rerun`, when running the same command again would not be the fix (kb add, whose note is
 * written already), takes the place of "run the command again" in the advice.
 */
export function describeFault(error: unknown, rerun?: string): string {
  const line = faultLine(error);
  return rerun === undefined ? line : line.replaceAll('run the command again', rerun);
}

function faultLine(error: unknown): string {
  if (isLostTerminal(error)) return `${LOST_TERMINAL} (${error.code} on ${error.syscall})`;
  if (isFsFault(error)) return describeFsFault(error) + databaseFolderHint(error);
  const sqlite = describeSqliteFault(error, databasePath);
  if (sqlite !== null) return sqlite;
  const name = error instanceof Error ? error.name : 'error';
  return `internal error: ${name}: ${firstLine(error)}; this is a bug in kb: please report it with the trace (run again with KB_DEBUG=1)`;
}

/**
 * The terminal refused kb's screen (EIO taking raw mode, as kb review does at its start and back
 * from the editor): kb is no longer in its terminal's foreground, its process group orphaned
 * when the program that started it ended (faketime or npx left with Ctrl-C), or the terminal
 * closed. It was said as a failing disk ("check the disk (dmesg), then run kb doctor"), found
 * as a user; no disk is involved.
 */
function isLostTerminal(error: unknown): error is NodeJS.ErrnoException {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return error instanceof Error && code === 'EIO' && syscall === 'setRawMode';
}

const LOST_TERMINAL =
  'the terminal no longer answers kb: kb lost its foreground (the program that started it, such as faketime or npx, ended by Ctrl-C?) or the terminal closed; what was saved stays saved: run the command again in a terminal';

/**
 * Where the database's own folder cannot be made or written (a HOME kb may not write: "…/.local:
 * permission denied"), the other way out: put the database elsewhere.
 */
function databaseFolderHint(error: NodeJS.ErrnoException): string {
  const denied = error.code === 'EACCES' || error.code === 'EPERM' || error.code === 'EROFS';
  const path = error.path;
  if (!denied || path === undefined || databasePath === null || process.env.KB_DB) return '';
  const inItsWay = databasePath === path || databasePath.startsWith(path.endsWith(sep) ? path : `${path}${sep}`);
  return inItsWay ? `; or give the database another place with KB_DB=FILE (by default it is ${databasePath})` : '';
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n')[0];
}

let exiting = false;

/**
 * Prints the one line (and with KB_DEBUG=1 the stack trace) and ends kb with exit code 1. On a
 * terminal the line wraps under its "kb: " as a user error's does (the terminal broke it
 * mid-word: "(ENOS" / "PC on write)"); a second fault on the way out is not printed again.
 */
export function exitOnFault(error: unknown): void {
  if (exiting) return;
  exiting = true;
  const line = `kb: ${describeFault(error)}\n`;
  void fittedToStderr(line)
    .catch(() => line)
    .then((text) => {
      process.stderr.write(text);
      if (process.env.KB_DEBUG === '1' && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
      process.exit(1);
    });
}
