// The ids a scan writes into its notes, written the way a batch should be. Each note is still
// replaced atomically on its own (temp file, made durable, rename), but the steps are not taken
// one note after another: the workers and the main thread write every temp file as they parse;
// once parsing is done, all the temp files are made durable at once (many: one sync of their
// file system; few: a fsync each, on libuv's threads), then swapped in by the main thread and
// helper threads together (swap-share.ts), and each folder is fsynced once at the end. The
// fsyncs wait for the parsing because on ext4 a file created while others are being fsynced
// waits on the journal: 10,000 temp files took 0.4 s to create on a quiet disk, about three
// times that beside running fsyncs. A kill leaves every note old or new, never half, and at
// worst a stray temp file (kb doctor --fix removes it).
//
// The scan counts each write as done from the start (`ScanFileOutcome`s from `written`), so its
// database transaction runs while the helpers swap; swap() then says which writes failed, for
// the transaction to be redone with those files' true outcomes (rare: a note edited meanwhile).
import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { close, fsync, open } from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { discardStaged, syncFolder, type StagedWrite } from './atomic-write.ts';
import { SYNC_FILE_SYSTEM_FROM } from './durable-batch.ts';
import { workerScript } from './worker-script.ts';
import { idWriteFailed, type PendingIdWrite, type ScanFileOutcome } from './scan-file.ts';
import { removeOwnTempFiles } from './stale-temp-files.ts';
import { DONE, fromSwapFailure, NEXT, swapClaimed, type SwapFailure } from './swap-share.ts';

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

/** A helper thread waiting to be handed the batch, and the port it reports failures on. */
interface Helper {
  worker: Worker;
  /** Set when the helper is handed the batch. */
  failures?: MessagePort;
}

/** How long the main thread waits for a helper's swap in progress before calling the helper lost. */
const HELPER_STALL_MS = 30_000;

export interface IdWritesOptions {
  /** From this many staged files, one sync of their file systems replaces a fsync each. */
  syncFileSystemFrom?: number;
  /** From this many, helper threads swap alongside the main thread (a helper takes ~0.2 s to load). */
  helpersFrom?: number;
  /** Folders whose temp files of this process a Ctrl-C or SIGTERM removes before kb ends; none: no such handler. */
  cleanUpOnSignal?: Iterable<string>;
}

export class IdWrites {
  /** The staged writes, with the index of each one's outcome in the scan's list. */
  private readonly staged: Array<{ index: number; pending: PendingIdWrite }> = [];
  /** Writes that failed before their swap (their temp file could not be made durable). */
  private readonly failedEarly = new Map<number, ScanFileOutcome>();
  private readonly syncFileSystemFrom: number;
  private readonly helpersFrom: number;
  private helpers: Helper[] = [];
  private swapped = false;
  private readonly interrupted: ((signal: NodeJS.Signals) => void) | null = null;
  /** Threads that write temp files for this batch (the scan's parsers), stopped before an interrupted scan cleans up. */
  private readonly writers = new Set<Worker>();

  constructor(options: IdWritesOptions = {}) {
    this.syncFileSystemFrom = options.syncFileSystemFrom ?? SYNC_FILE_SYSTEM_FROM;
    this.helpersFrom = options.helpersFrom ?? 2000;
    if (options.cleanUpOnSignal) {
      // Ids wait in temp files beside the notes until swap(): Ctrl-C or SIGTERM meanwhile removes
      // them on the way out, then ends kb as the signal would.
      // The threads that parse and stage are stopped first: one still writing would leave a
      // temp file made after the clean-up (Ctrl-C a second into a big scan: dozens of them).
      // A second signal meanwhile ends kb at once, as it would have.
      const folders = [...options.cleanUpOnSignal];
      const interrupted = (signal: NodeJS.Signals) => {
        this.removeSignalHandlers();
        void Promise.allSettled([...this.writers].map((worker) => worker.terminate())).then(() => {
          removeOwnTempFiles(folders);
          process.kill(process.pid, signal);
        });
      };
      this.interrupted = interrupted;
      process.on('SIGINT', interrupted);
      process.on('SIGTERM', interrupted);
    }
  }

  /** A thread that stages temp files for this batch; an interrupt stops it before the clean-up. */
  addWriter(worker: Worker): void {
    this.writers.add(worker);
    worker.once('exit', () => this.writers.delete(worker));
  }

  /** A write whose temp file is written and closed; its outcome sits at `index` in the scan's list. */
  add(index: number, pending: PendingIdWrite): void {
    this.staged.push({ index, pending });
  }

  /** Makes every temp file durable, and starts the helper threads for a big batch. */
  async prepare(): Promise<void> {
    if (this.staged.length === 0) return;
    const helperCount = this.staged.length >= this.helpersFrom ? Math.min(3, availableParallelism() - 1) : 0;
    this.helpers = Array.from({ length: helperCount }, () => startHelper());
    const folders = [...new Set(this.staged.map(({ pending }) => pending.staged.folder))];
    if (this.staged.length >= this.syncFileSystemFrom && (await syncFileSystems(folders))) return;
    const synced = await Promise.allSettled(this.staged.map(({ pending }) => fsyncFile(pending.staged.temp)));
    synced.forEach((result, k) => {
      if (result.status === 'fulfilled') return;
      const { index, pending } = this.staged[k];
      discardStaged(pending.staged);
      this.failedEarly.set(index, idWriteFailed(pending, result.reason));
    });
  }

  /**
   * Swaps every durable temp file in (synchronously: the caller may hold a database
   * transaction open across it), with the helpers, then fsyncs each folder once. `meanwhile`
   * runs on this thread once the helpers have the batch. Returns the outcomes that differ from
   * the optimistic ones (each write's `written`): the writes that failed, by outcome index.
   */
  swap(meanwhile: () => void = () => {}): Map<number, ScanFileOutcome> {
    const corrections = new Map(this.failedEarly);
    const batch = this.staged.filter(({ index }) => !this.failedEarly.has(index));
    const staged: StagedWrite[] = batch.map(({ pending }) => pending.staged);
    const counters = new Int32Array(new SharedArrayBuffer(8));
    for (const helper of this.helpers) {
      const channel = new MessageChannel();
      helper.worker.postMessage({ staged, counters: counters.buffer, port: channel.port2 }, [channel.port2]);
      helper.failures = channel.port1;
    }
    const failed = new Map<number, unknown>();
    try {
      meanwhile();
    } catch (error) {
      // No more writes are handed out; those the helpers have begun are finished, and close()
      // removes the temp files of the rest.
      waitForAll(counters, Math.min(Atomics.exchange(counters, NEXT, staged.length), staged.length));
      throw error;
    }
    swapClaimed(staged, counters, (k, error) => failed.set(k, error));
    waitForAll(counters, staged.length);
    this.swapped = true;
    for (const helper of this.helpers) {
      for (let message = helper.failures && receiveMessageOnPort(helper.failures); message; message = receiveMessageOnPort(helper.failures!)) {
        const failure = message.message as SwapFailure;
        failed.set(failure.index, fromSwapFailure(failure, staged[failure.index]));
      }
    }
    const folders = new Set<string>();
    batch.forEach(({ index, pending }, k) => {
      if (failed.has(k)) corrections.set(index, idWriteFailed(pending, failed.get(k)));
      else folders.add(pending.staged.folder);
    });
    for (const folder of folders) syncFolder(folder);
    return corrections;
  }

  /** Ends the batch: temp files not swapped in are removed, the helpers stopped. */
  close(): void {
    // After a swap cut short, some temp files are already renamed in: removing those names again finds nothing.
    if (!this.swapped) for (const { pending } of this.staged) discardStaged(pending.staged);
    this.swapped = true;
    for (const helper of this.helpers) void helper.worker.terminate();
    this.helpers = [];
    // A Ctrl-C during swap() (synchronous) waits in libuv until the loop next polls: the
    // handler stays until then (the second check phase from here), so that the signal still
    // ends kb, now with every note whole, instead of going unheard.
    setImmediate(() => setImmediate(() => this.removeSignalHandlers()));
  }

  private removeSignalHandlers(): void {
    if (!this.interrupted) return;
    process.off('SIGINT', this.interrupted);
    process.off('SIGTERM', this.interrupted);
  }
}

function startHelper(): Helper {
  const { script, execArgv } = workerScript('swap-worker', new URL('./swap-worker.ts', import.meta.url));
  const worker = new Worker(script, { execArgv });
  // A helper that fails to load takes nothing from the batch; the main thread swaps it all.
  worker.on('error', () => {});
  worker.unref();
  return { worker };
}

/** Blocks until `total` writes are done; a helper stuck on one write for HELPER_STALL_MS is an error. */
function waitForAll(counters: Int32Array, total: number): void {
  for (let done = Atomics.load(counters, DONE); done < total; done = Atomics.load(counters, DONE)) {
    if (Atomics.wait(counters, DONE, done, HELPER_STALL_MS) === 'timed-out' && Atomics.load(counters, DONE) === done) {
      throw new Error(`a helper thread stopped in the middle of writing card ids (${total - done} of ${total} notes unconfirmed); run kb scan again`);
    }
  }
}
