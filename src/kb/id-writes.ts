// The ids a scan writes into its notes, written the way a batch should be. Each note is still
// replaced atomically on its own (temp file, fsync, rename), but the steps are not taken one
// note after another: the workers and the main thread write every temp file as they parse;
// once parsing is done, all the temp files are fsynced at once on libuv's threads (the disk
// commits them together), each is renamed into place by the main thread as soon as its own
// fsync is done, and each folder is fsynced once at the end. The fsyncs wait for the parsing
// because on ext4 a file created while others are being fsynced waits on the journal: 10,000
// temp files took 0.4 s to create on a quiet disk, about three times that beside running
// fsyncs. A kill leaves every note old or new, never half, and at worst a stray temp file
// (kb doctor --fix removes it).
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
  private readonly staged: PendingIdWrite[] = [];

  /** A write whose temp file is written and closed; finish fsyncs it and renames it in. */
  add(pending: PendingIdWrite): void {
    this.staged.push(pending);
  }

  /** fsyncs every temp file, renames each in, fsyncs each folder once; the outcomes in order. */
  async finish(results: Array<ScanFileOutcome | PendingIdWrite>): Promise<ScanFileOutcome[]> {
    const outcomes = new Map<PendingIdWrite, ScanFileOutcome>();
    const folders = new Set<string>();
    // The files replaced are freed (their last descriptor closed) on libuv's threads while
    // the main thread goes on renaming: on ext4 freeing one is the slowest step of a swap.
    const freed: Array<Promise<void>> = [];
    const closeReplaced = (fd: number) => void freed.push(new Promise((resolve) => close(fd, () => resolve())));
    // Renamed in as their fsyncs come back: the main thread swaps while the disk commits the rest.
    let ready: PendingIdWrite[] = [];
    let remaining = this.staged.length;
    let wake: (() => void) | null = null;
    const arrived = () => {
      const resume = wake;
      wake = null;
      resume?.();
    };
    for (const pending of this.staged) {
      fsyncFile(pending.staged.temp).then(() => {
        ready.push(pending);
        arrived();
      }, (error: unknown) => {
        outcomes.set(pending, this.failed(pending, error));
        remaining--;
        arrived();
      });
    }
    while (remaining > 0) {
      if (ready.length === 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      const batch = ready;
      ready = [];
      for (const pending of batch) {
        remaining--;
        try {
          outcomes.set(pending, finishIdWrite(pending, { written: swapIn(pending.staged, { closeReplaced }) }));
          folders.add(pending.staged.folder);
        } catch (error) {
          outcomes.set(pending, this.failed(pending, error));
        }
      }
    }
    for (const folder of folders) syncFolder(folder);
    await Promise.all(freed);
    return results.map((result) => (result.kind === 'pending' ? (outcomes.get(result) as ScanFileOutcome) : result));
  }

  private failed(pending: PendingIdWrite, error: unknown): ScanFileOutcome {
    discardStaged(pending.staged);
    return finishIdWrite(pending, { error });
  }
}
