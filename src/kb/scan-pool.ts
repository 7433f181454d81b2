// Runs scanFileStaged over many files, on all cores when there are enough files to be worth it.
// Parsing Markdown is the cost of a cold scan, and it is independent per file. The main
// thread parses from the first file on; worker threads (one per other core) join in as soon
// as they have loaded the parser, so their start-up (about half a CPU second each: they load
// the TypeScript sources through tsx, as the CLI does, else through Node's own type
// stripping) never holds the scan up. A worker that fails hands its files back.
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { IdWrites } from './id-writes.ts';
import { GUARDED_FROM_BYTES, scanGuarded } from './scan-guarded.ts';
import { workerScript } from './worker-script.ts';
import { scanFileStaged, type PendingIdWrite, type ScanFileContext, type ScanFileInput, type ScanFileOutcome } from './scan-file.ts';

type Staged = ScanFileOutcome | PendingIdWrite;

/**
 * Below this many files, the main thread is done before a worker could help: a worker takes
 * about a second of wall time to load, the main thread parses about 1,500 notes a second.
 */
const minFilesForWorkers = 1000;
/** Files per message: small enough to balance the threads and report progress, big enough to amortise a message. */
const batchSize = 50;
/** Batches sent ahead to a worker, so it never waits for the main thread to read its results. */
const batchesInFlight = 2;

export interface PoolOptions {
  /** Use workers from this many files on (tests lower it). */
  workersFrom?: number;
  /** Leave every file to the workers (tests use it to be sure the workers parse). */
  workersOnly?: boolean;
  /** Read files bigger than this under a time budget on a worker of their own (tests lower it). */
  guardedFrom?: number;
  /** That time budget, per file (tests lower it). */
  fileBudgetMs?: number;
}

interface ScanAllOptions extends PoolOptions {
  /** Told of each worker thread started (they stage id writes). */
  onWorker: (worker: Worker) => void;
}

interface PoolWorker {
  /** Settles when the worker has returned every batch it took. */
  done: Promise<void>;
  /** No more batches for it: a worker still loading is let go at once. */
  stop(): void;
}

/** Every file's outcome, id writes counted as done; `idWrites` holds them, staged, for the caller to swap in and close. */
export interface ScannedFiles {
  outcomes: ScanFileOutcome[];
  idWrites: IdWrites;
}

export async function scanFiles(
  inputs: ScanFileInput[],
  context: ScanFileContext,
  onProgress?: (done: number, total: number) => void,
  options: PoolOptions = {},
): Promise<ScannedFiles> {
  const idWrites = new IdWrites({ cleanUpOnSignal: context.writeIds ? new Set(inputs.map((input) => dirname(input.abs))) : undefined });
  try {
    const staged = inputs.length === 0 ? [] : await scanAll(inputs, context, onProgress, { ...options, onWorker: (worker) => idWrites.addWriter(worker) });
    const outcomes = staged.map((result, index) => {
      if (result.kind !== 'pending') return result;
      idWrites.add(index, result);
      return result.written;
    });
    return { outcomes, idWrites };
  } catch (error) {
    idWrites.close();
    throw error;
  }
}

async function scanAll(
  inputs: ScanFileInput[],
  context: ScanFileContext,
  onProgress: ((done: number, total: number) => void) | undefined,
  options: ScanAllOptions,
): Promise<Staged[]> {
  const outcomes: Staged[] = new Array(inputs.length);
  let done = 0;
  // Big files go to the guarded worker, which runs alongside the parsing below.
  const guardedFrom = options.guardedFrom ?? GUARDED_FROM_BYTES;
  const big = inputs.flatMap((input, i) => (input.size > guardedFrom ? [i] : []));
  const guarded = scanGuarded(big.map((i) => inputs[i]), context, (k, outcome) => {
    outcomes[big[k]] = outcome;
    onProgress?.(++done, inputs.length);
  }, { budgetMs: options.fileBudgetMs, onWorker: options.onWorker });
  const small = big.length === 0 ? inputs.map((_, i) => i) : inputs.flatMap((input, i) => (input.size > guardedFrom ? [] : [i]));
  const batches: number[][] = [];
  for (let start = 0; start < small.length; start += batchSize) batches.push(small.slice(start, start + batchSize));
  let nextBatch = 0;
  const take = (): number[] | null => (nextBatch < batches.length ? batches[nextBatch++] : null);
  const deliver = (batch: number[], results: Staged[]) => {
    batch.forEach((i, k) => (outcomes[i] = results[k]));
    done += batch.length;
    onProgress?.(done, inputs.length);
  };
  const runInline = (batch: number[]) => deliver(batch, batch.map((i) => scanFileStaged(inputs[i], context)));

  const workerCount = batches.length === 0 ? 0 : options.workersOnly
    ? Math.max(1, availableParallelism() - 1)
    : small.length >= (options.workersFrom ?? minFilesForWorkers) ? Math.min(availableParallelism() - 1, batches.length - 1) : 0;
  const workers = Array.from({ length: Math.max(0, workerCount) }, () => startWorker(inputs, context, take, deliver, runInline, options.onWorker));
  if (!options.workersOnly) {
    for (let batch = take(); batch; batch = take()) {
      runInline(batch);
      // Let the workers' results in, and send them more work (the guarded worker's too, so its
      // budget counts its own time, not this thread's).
      if (workers.length > 0 || big.length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
    for (const worker of workers) worker.stop();
  }
  await Promise.all(workers.map((worker) => worker.done));
  // Whatever a failed worker could not take (workersOnly).
  for (let batch = take(); batch; batch = take()) runInline(batch);
  await guarded;
  return outcomes;
}

function startWorker(
  inputs: ScanFileInput[],
  context: ScanFileContext,
  take: () => number[] | null,
  deliver: (batch: number[], results: Staged[]) => void,
  runInline: (batch: number[]) => void,
  onWorker: (worker: Worker) => void,
): PoolWorker {
  const { script, execArgv } = workerScript('scan-worker', new URL('./scan-worker.ts', import.meta.url));
  const worker = new Worker(script, { execArgv });
  onWorker(worker);
  let ready = false;
  let stopped = false;
  let finished = false;
  const inFlight: number[][] = [];
  let resolveDone: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const finish = () => {
    if (finished) return;
    finished = true;
    void worker.terminate();
    resolveDone();
  };
  const fill = () => {
    while (!stopped && inFlight.length < batchesInFlight) {
      const batch = take();
      if (!batch) break;
      inFlight.push(batch);
      worker.postMessage({ batch: batch.map((i) => inputs[i]), context });
    }
    if (inFlight.length === 0) finish();
  };
  worker.on('message', (message: 'ready' | Staged[]) => {
    if (message === 'ready') ready = true;
    else deliver(inFlight.shift()!, message);
    fill();
  });
  const fallBack = () => {
    // The worker could not run (or died): the batches it held go to the main thread.
    if (finished) return;
    for (const batch of inFlight.splice(0)) runInline(batch);
    finish();
  };
  worker.on('error', fallBack);
  worker.on('exit', fallBack);
  return {
    done,
    stop() {
      stopped = true;
      if (!ready || inFlight.length === 0) finish();
    },
  };
}
