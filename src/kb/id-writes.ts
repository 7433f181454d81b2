// The ids a scan writes into its notes, written the way a batch should be. Each note is
// still replaced atomically on its own (temp file, fsync, rename), but not one after another:
// the workers and the main thread write the temp files as they parse; each temp file's fsync
// starts as soon as its batch comes back and runs on libuv's threads while parsing goes on, so
// the disk commits many at once; when every batch is in, the temp files are renamed over their
// notes, and each folder is fsynced once. A kill leaves every note old or new, never half,
// and at worst a stray temp file (kb doctor --fix removes it).
import { close, fsync, open } from 'node:fs';
import { discardStaged, swapIn, syncFolder } from './atomic-write.ts';
import { finishIdWrite, type PendingIdWrite, type ScanFileOutcome } from './scan-file.ts';

/** fsync by path (the staging thread closed its descriptor): open, fsync, close on libuv's threads. */
function fsyncFile(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    open(path, 'r', (openError, fd) => {
      if (openError) return reject(openError);
      fsync(fd, (syncError) => close(fd, (closeError) => (syncError ?? closeError ? reject(syncError ?? closeError) : resolve())));
    });
  });
}

export class IdWrites {
  private readonly flushing = new Map<PendingIdWrite, Promise<unknown>>();

  /** Starts a staged write's fsync at once; the result is read in finish(). */
  start(pending: PendingIdWrite): void {
    this.flushing.set(pending, fsyncFile(pending.staged.temp).then(() => null, (error: unknown) => error));
  }

  /** Waits for the fsyncs, renames each temp file over its note, fsyncs each folder once. */
  async finish(results: Array<ScanFileOutcome | PendingIdWrite>): Promise<ScanFileOutcome[]> {
    const errors = new Map<PendingIdWrite, unknown>();
    await Promise.all([...this.flushing].map(async ([pending, flushed]) => errors.set(pending, await flushed)));
    const folders = new Set<string>();
    const outcomes = results.map((result) => {
      if (result.kind !== 'pending') return result;
      const error = errors.get(result) ?? null;
      if (error === null) {
        try {
          const written = swapIn(result.staged);
          folders.add(result.staged.folder);
          return finishIdWrite(result, { written });
        } catch (swapError) {
          discardStaged(result.staged);
          return finishIdWrite(result, { error: swapError });
        }
      }
      discardStaged(result.staged);
      return finishIdWrite(result, { error });
    });
    for (const folder of folders) syncFolder(folder);
    return outcomes;
  }
}
