// kb doctor's hygiene check: the temp files kb's own atomic writes leave when the process is
// killed mid-write (`.<name>.<pid>.<hex>.kb-tmp`, beside the file being replaced). One whose
// process is gone is stale and safe to remove: its rename never happened (or already did, and
// it is the replaced file's second name). One whose process still runs is left alone, as is
// any file kb did not name.
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { TEMP_FILE_PATTERN } from './atomic-write.ts';

export interface StaleTempFile {
  /** Relative to the knowledge base, with forward slashes. */
  path: string;
  pid: number;
  removed: boolean;
  removeError?: string;
}

/** Tool state and installed packages: never where kb writes notes. */
function skipFolder(name: string): boolean {
  return name === '.git' || name === 'node_modules';
}

/** Whether a process with this id runs now (one of another user counts: it may be a kb). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** kb's temp files under `root` whose writer is gone; with `remove`, deletes them. */
export function staleTempFiles(root: string, remove: boolean): StaleTempFile[] {
  const found: StaleTempFile[] = [];
  const visit = (folder: string) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return; // unreadable folders are kb scan's to report
    }
    for (const entry of entries) {
      const abs = join(folder, entry.name);
      // Real folders only: a linked folder leads to files kb never writes through.
      if (entry.isDirectory()) {
        if (!skipFolder(entry.name)) visit(abs);
        continue;
      }
      const match = TEMP_FILE_PATTERN.exec(entry.name);
      if (!match || !entry.isFile()) continue;
      const pid = Number(match[2]);
      if (processAlive(pid)) continue;
      const stale: StaleTempFile = { path: relative(root, abs).split(sep).join('/'), pid, removed: false };
      if (remove) {
        try {
          if (lstatSync(abs).isFile()) unlinkSync(abs);
          stale.removed = true;
        } catch (error) {
          stale.removeError = (error as NodeJS.ErrnoException).code ?? String(error);
        }
      }
      found.push(stale);
    }
  };
  visit(root);
  return found.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Removes the temp files this process has made in `folders` (not below them): an interrupted
 * scan calls it on its way out, so a Ctrl-C leaves no temp file beside the notes. Never throws.
 */
export function removeOwnTempFiles(folders: Iterable<string>): void {
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = TEMP_FILE_PATTERN.exec(name);
      if (match && Number(match[2]) === process.pid) {
        try {
          unlinkSync(join(folder, name));
        } catch {
          // renamed in or removed meanwhile
        }
      }
    }
  }
}
