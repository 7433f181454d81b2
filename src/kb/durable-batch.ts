// Making many staged temp files durable at once, for a batch of atomic writes that runs
// synchronously (a replay's write-backs: writeback.ts's commitWritebacks). A scan's id writes do
// the same on libuv's threads (id-writes.ts).
import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, openSync, statSync } from 'node:fs';
import type { StagedWrite } from './atomic-write.ts';

/** From this many staged files, one sync of their file systems replaces a fsync each (a scan's id writes too). */
export const SYNC_FILE_SYSTEM_FROM = 256;

/**
 * Flushes the file systems holding `folders`: syncfs(2), through coreutils' `sync -f` (Node has
 * no binding), one journal commit for all the files where a fsync each makes the disk commit
 * them one by one. It also flushes whatever else waits on those file systems, hence only for
 * big batches. False where it cannot run (no such command; macOS's sync takes no -f).
 */
export function syncFileSystems(folders: readonly string[]): boolean {
  try {
    execFileSync('sync', ['-f', ...folders], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes each staged (closed) temp file durable: one sync of their file systems for a big batch,
 * else (or where that cannot run) a fsync each. Returns the error of each that could not be, by index.
 */
export function makeStagedDurable(staged: readonly StagedWrite[], options: { syncFileSystemFrom?: number } = {}): Map<number, unknown> {
  const failed = new Map<number, unknown>();
  if (staged.length === 0) return failed;
  // One folder per file system: sync -f flushes a file system once for each folder named on it.
  const byDevice = new Map<number, string>();
  for (const folder of new Set(staged.map((write) => write.folder))) {
    try {
      const { dev } = statSync(folder);
      if (!byDevice.has(dev)) byDevice.set(dev, folder);
    } catch {
      // gone: its temp files fail their fsync below (or their rename) and are refused there
    }
  }
  const folders = [...byDevice.values()];
  if (folders.length > 0 && staged.length >= (options.syncFileSystemFrom ?? SYNC_FILE_SYSTEM_FROM) && syncFileSystems(folders)) return failed;
  staged.forEach((write, index) => {
    try {
      const fd = openSync(write.temp, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      failed.set(index, error);
    }
  });
  return failed;
}
