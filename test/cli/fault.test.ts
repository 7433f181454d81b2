// The one-line reasons kb gives for faults of the machine, from real error objects: a write
// to /dev/full (ENOSPC), a read-only SQLite database, SQLite's own error class for the codes a
// test cannot provoke cheaply (SQLITE_FULL, SQLITE_IOERR), and a full file system as statfs reports it.
import Database from 'better-sqlite3';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { describeFault, noteDatabasePath } from '../../src/cli/fault.ts';
import { describeFsFault, isFsFault } from '../../src/kb/fs-fault.ts';
import { tempDir } from '../helpers/kb-cli.ts';

// statfsSync as it is, or reporting a full file system (no test can fill a disk cheaply).
const disk = vi.hoisted(() => ({ full: false }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, statfsSync: (path: string) => ({ ...fs.statfsSync(path), ...(disk.full ? { bavail: 0 } : {}) }) };
});

function caught(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('describeFault', () => {
  it('EIO taking the terminal\'s raw mode is a lost terminal, not a failing disk (found as a user)', () => {
    // As Node's tty raises it when kb review, back from the editor, is no longer in its
    // terminal's foreground (faketime, which started it, ended by a Ctrl-C in the editor).
    const error = Object.assign(new Error('setRawMode EIO'), { code: 'EIO', errno: -5, syscall: 'setRawMode' });
    const line = describeFault(error);
    expect(line).toMatch(/^the terminal no longer answers kb: .*run the command again in a terminal \(EIO on setRawMode\)$/);
    expect(line).not.toContain('disk');
    // A read that fails so is still the device's.
    expect(describeFault(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' }))).toContain('check the disk');
  });

  it('a full disk (a real ENOSPC from /dev/full) names the file', () => {
    const fd = openSync('/dev/full', 'w');
    const error = caught(() => writeSync(fd, Buffer.from('x')));
    closeSync(fd);
    expect(isFsFault(error)).toBe(true);
    expect(describeFault(error)).toBe('no space left on the device; free some space and run the command again (ENOSPC on write)');
    expect(describeFsFault(error as never, 'notes/a.md')).toBe('notes/a.md: no space left on the device; free some space and run the command again (ENOSPC on write)');
  });

  it('SQLite faults name the database the command opened', () => {
    const dir = tempDir();
    const path = join(dir, 'kb.db');
    new Database(path).exec('CREATE TABLE t (x)');
    const readonly = new Database(path, { readonly: true });
    noteDatabasePath(path);
    const error = caught(() => readonly.exec('INSERT INTO t VALUES (1)'));
    readonly.close();
    expect(describeFault(error)).toBe(`database ${path}: it cannot be written (read-only file or file system); make it writable, or set KB_DB to a writable path (SQLITE_READONLY)`);
    const full = new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    expect(describeFault(full)).toBe(`database ${path}: the disk is full; free some space and run the command again (the change in flight was rolled back) (SQLITE_FULL)`);
    const io = new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE');
    expect(describeFault(io)).toBe(`database ${path}: disk I/O error; check the disk (dmesg), then run kb doctor (SQLITE_IOERR_WRITE)`);
  });

  it('an I/O error on a full file system says the disk is full (a read opening the WAL fails so)', () => {
    const path = join(tempDir(), 'kb.db');
    noteDatabasePath(path);
    const io = new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_SHMSIZE');
    disk.full = true;
    try {
      expect(describeFault(io)).toBe(`database ${path}: the disk holding it is full (0 bytes free); free some space and run the command again (SQLITE_IOERR_SHMSIZE)`);
    } finally {
      disk.full = false;
    }
    expect(describeFault(io)).toBe(`database ${path}: disk I/O error; check the disk (dmesg), then run kb doctor (SQLITE_IOERR_SHMSIZE)`);
  });

  it('anything else is a bug in kb, said in one line', () => {
    const error = caught(() => (null as unknown as { x: number }).x);
    expect(describeFault(error)).toMatch(/^internal error: TypeError: Cannot read properties of null \(reading 'x'\); this is a bug in kb: please report it with the trace \(run again with KB_DEBUG=1\)$/);
  });
});
