// The ids a scan writes into its notes, written the way a batch should be. Each note is still
// replaced atomically on its own (temp file, made durable, rename), but the steps are not taken
// one note after another: the workers and the main thread write every temp file as they parse;
// once parsing is done, all the temp files are made durable at once (many: one sync of their
// file system; few: a fsync each on libuv's threads, each renamed into place by the main thread
// as soon as its own fsync is done), and each folder is fsynced once at the end. The fsyncs wait for the parsing
// because on ext4 a file created while others are being fsynced waits on the journal: 10,000
// temp files took 0.4 s to create on a quiet disk, about three times that beside running
// fsyncs. A kill leaves every note old or new, never half, and at worst a stray temp file
// (kb doctor --fix removes it).
import { execFile } from 'node:child_process';
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

/**
 * Flushes the file systems holding `folders`: syncfs(2), through coreutils' `sync -f` (Node has
 * no binding), one journal commit for all the temp files where a fsync each makes the disk
 * commit them in many. 10,000 temp files of 3 KB here: 0.11 s as one sync, 0.85 s of fsyncs on
 * 16 threads. It also flushes whatever else is waiting on those file systems, hence only for
 * big batches. False where it cannot run (no such command; macOS's sync takes no -f).
 */
function syncFileSystems(folders: string[]): Promise<boolean> {
  return new Promise((resolve) => execFile('sync', ['-f', ...folders], (error) => resolve(error === null)));
}

export class IdWrites {
  private readonly staged: PendingIdWrite[] = [];

  /** From this many staged files, one sync of their file systems replaces a fsync each. */
  private readonly syncFileSystemFrom: number;

  constructor(syncFileSystemFrom = 256) {
    this.syncFileSystemFrom = syncFileSystemFrom;
  }

  /** A write whose temp file is written and closed; finish fsyncs it and renames it in. */
  add(pending: PendingIdWrite): void {
    this.staged.push(pending);
  }

  /** Makes every temp file durable, renames each in, fsyncs each folder once; the outcomes in order. */
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
    if (this.staged.length >= this.syncFileSystemFrom && (await syncFileSystems([...new Set(this.staged.map((pending) => pending.staged.folder))]))) {
      ready = [...this.staged];
    } else {
      for (const pending of this.staged) {
        fsyncFile(pending.staged.temp).then(
          () => {
            ready.push(pending);
            arrived();
          },
          (error: unknown) => {
            outcomes.set(pending, this.failed(pending, error));
            remaining--;
            arrived();
          },
        );
      }
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
