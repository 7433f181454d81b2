// Big files are read on a worker thread under a time and memory budget. Markdown parsers have
// inputs that cost far more than their size says (markdown-it on a list of 60,000 items each
// with a sub-item, 600 KB: 2 s; remark took half a minute on 200 KB of it), and a
// synchronous parse cannot be interrupted, only its thread ended. So every file over a size goes to a worker one at a time; a file that takes longer
// than the budget, or more memory than the worker may have, is skipped with a warning naming
// it, the worker is ended, and a fresh one takes the next file. Files under the size parse as
// before: notes people write are a few KB, and parse-limits.ts refuses the deep nesting that
// makes a small file slow. The budget is the worker's CPU time where Linux tells it (so a
// loaded machine does not skip good files), with a wall-time cap of ten budgets; elsewhere wall time.
import { Worker } from 'node:worker_threads';
import { workerScript } from './worker-script.ts';
import { scanFileStaged, type PendingIdWrite, type ScanFileContext, type ScanFileInput, type ScanFileOutcome } from './scan-file.ts';

/** A file's outcome, or its ids staged in a temp file for the scan to swap in (see id-writes.ts). */
type Staged = ScanFileOutcome | PendingIdWrite;
import { threadCpuMs } from './thread-cpu.ts';

/** Files bigger than this are read under the budget (the bundled notes are under 10 KB; long seed notes 30 KB). */
export const GUARDED_FROM_BYTES = 32 * 1024;
/** CPU time one file may take to read, parse and get its ids. */
export const FILE_BUDGET_MS = 1000;
/** However loaded the machine, no file holds a scan up longer than this many budgets of wall time. */
const WALL_CAP_BUDGETS = 10;
/** The worker's heap: a file that needs more is skipped, and kb's own memory stays bounded. */
export const WORKER_HEAP_MB = 96;

export interface GuardOptions {
  budgetMs?: number;
  /** Told of each worker thread started (it stages id writes). */
  onWorker?: (worker: Worker) => void;
}

type WorkerEvent = { kind: 'ready' } | { kind: 'result'; outcomes: Staged[] } | { kind: 'died'; error: unknown };

/** One worker, and the next thing it says (a message, an error, or its exit). */
class GuardWorker {
  private readonly worker: Worker;
  private waiting: ((event: WorkerEvent) => void) | null = null;
  private dead: WorkerEvent | null = null;
  /** Where the worker writes its kernel thread id (0 until then, or where there is none). */
  private readonly threadIdSlot = new Int32Array(new SharedArrayBuffer(4));

  constructor(onWorker?: (worker: Worker) => void) {
    const { script, execArgv } = workerScript('scan-worker', new URL('./scan-worker.ts', import.meta.url));
    this.worker = new Worker(script, {
      execArgv,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 16 },
      workerData: { threadIdSlot: this.threadIdSlot },
    });
    onWorker?.(this.worker);
    this.worker.on('message', (message: 'ready' | Staged[]) => this.emit(message === 'ready' ? { kind: 'ready' } : { kind: 'result', outcomes: message }));
    this.worker.on('error', (error) => this.die(error));
    this.worker.on('exit', (code) => this.die(new Error(`worker exited with code ${code}`)));
  }

  private emit(event: WorkerEvent): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.(event);
  }

  private die(error: unknown): void {
    this.dead ??= { kind: 'died', error };
    this.emit(this.dead);
  }

  /** The next event, or null after `ms` (when given). */
  next(ms?: number): Promise<WorkerEvent | null> {
    if (this.dead) return Promise.resolve(this.dead);
    return new Promise((resolve) => {
      const timer = ms === undefined ? null : setTimeout(() => {
        this.waiting = null;
        resolve(null);
      }, ms);
      this.waiting = (event) => {
        if (timer) clearTimeout(timer);
        resolve(event);
      };
    });
  }

  /** The worker's CPU time so far, in ms; null where it cannot be read. */
  cpuMs(): number | null {
    const tid = Atomics.load(this.threadIdSlot, 0);
    return tid === 0 ? null : threadCpuMs(tid);
  }

  send(input: ScanFileInput, context: ScanFileContext): void {
    this.worker.postMessage({ batch: [input], context });
  }

  end(): void {
    void this.worker.terminate();
  }
}

/** scanFileStaged for each input, one at a time on a worker, each under the budget; calls onEach as each is done. */
export async function scanGuarded(
  inputs: ScanFileInput[],
  context: ScanFileContext,
  onEach: (index: number, outcome: Staged) => void,
  options: GuardOptions = {},
): Promise<void> {
  const budgetMs = options.budgetMs ?? FILE_BUDGET_MS;
  let worker: GuardWorker | null = null;
  for (let index = 0; index < inputs.length; index++) {
    const input = inputs[index];
    if (!worker) {
      const fresh = startWorker(options.onWorker);
      // Loading the parser is not the file's time: no budget until the worker says it is ready.
      const started = fresh ? await fresh.next() : null;
      if (!fresh || started?.kind !== 'ready') {
        // No worker can run here: read the rest on this thread, unguarded, as kb did before.
        fresh?.end();
        for (; index < inputs.length; index++) onEach(index, scanFileStaged(inputs[index], context));
        return;
      }
      worker = fresh;
    }
    const event = await runOne(worker, input, context, budgetMs);
    if (event?.kind === 'result') {
      onEach(index, event.outcomes[0]);
      continue;
    }
    worker.end();
    worker = null;
    const why = event === null ? `took over ${budgetMs / 1000} s to read (machine-made or crafted Markdown?)` : deathReason(event);
    onEach(index, { kind: 'unreadable', path: input.path, diagnostic: { severity: 'warning', file: input.path, message: `${why}; skipped` } });
  }
  worker?.end();
}

function startWorker(onWorker?: (worker: Worker) => void): GuardWorker | null {
  try {
    return new GuardWorker(onWorker);
  } catch {
    return null;
  }
}

/** Sends one file and waits for its outcome; null when it overran the budget. */
async function runOne(worker: GuardWorker, input: ScanFileInput, context: ScanFileContext, budgetMs: number): Promise<WorkerEvent | null> {
  const cpuStart = worker.cpuMs();
  const wallStart = performance.now();
  worker.send(input, context);
  let event = await worker.next(budgetMs);
  // Past the budget in wall time: wait on while the worker has had less CPU time than that.
  while (event === null && cpuStart !== null) {
    const used = (worker.cpuMs() ?? Infinity) - cpuStart;
    const wallLeft = budgetMs * WALL_CAP_BUDGETS - (performance.now() - wallStart);
    if (used >= budgetMs || wallLeft <= 0) break;
    event = await worker.next(Math.min(wallLeft, Math.max(20, budgetMs - used)));
  }
  return event;
}

function deathReason(event: WorkerEvent): string {
  const error = event.kind === 'died' ? (event.error as NodeJS.ErrnoException) : null;
  if (error?.code === 'ERR_WORKER_OUT_OF_MEMORY') return `needed more than ${WORKER_HEAP_MB} MB to read`;
  return `stopped the worker reading it (${error?.message ?? event.kind})`;
}
