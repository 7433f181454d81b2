// The ids a scan writes into its notes, written the way a batch should be. Each note is
// still replaced atomically on its own (temp file, fsync, rename), but not one after another:
// the workers and the main thread write the temp files as they parse; each temp file's fsync
// starts as soon as its batch comes back and runs on libuv's threads while parsing goes on, so
// the disk commits many at once; a note whose fsync is done is renamed into place the next
// time the scan's main thread looks (swapReady, between batches), so the renames overlap the
// parsing too; at the end each folder is fsynced once. A kill leaves every note old or new,
// never half, and at worst a stray temp file (kb doctor --fix removes it).
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
  private readonly flushing: Array<Promise<void>> = [];
  /** fsynced, waiting for their rename. */
  private readonly ready: PendingIdWrite[] = [];
  private readonly outcomes = new Map<PendingIdWrite, ScanFileOutcome>();
  private readonly folders = new Set<string>();

  /** Starts a staged write's fsync at once; it is renamed in by swapReady or finish. */
  start(pending: PendingIdWrite): void {
    this.flushing.push(fsyncFile(pending.staged.temp).then(
      () => void this.ready.push(pending),
      (error: unknown) => this.settle(pending, { error }),
    ));
  }

  /** Renames in every write whose fsync is done (the folders are fsynced in finish). */
  swapReady(): void {
    for (const pending of this.ready.splice(0)) {
      try {
        const written = swapIn(pending.staged);
        this.folders.add(pending.staged.folder);
        this.outcomes.set(pending, finishIdWrite(pending, { written }));
      } catch (error) {
        this.settle(pending, { error });
      }
    }
  }

  /** Waits for the fsyncs, renames what is left, fsyncs each folder once; the outcomes in order. */
  async finish(results: Array<ScanFileOutcome | PendingIdWrite>): Promise<ScanFileOutcome[]> {
    await Promise.all(this.flushing);
    this.swapReady();
    for (const folder of this.folders) syncFolder(folder);
    return results.map((result) => (result.kind === 'pending' ? (this.outcomes.get(result) as ScanFileOutcome) : result));
  }

  private settle(pending: PendingIdWrite, failure: { error: unknown }): void {
    discardStaged(pending.staged);
    this.outcomes.set(pending, finishIdWrite(pending, failure));
  }
}
