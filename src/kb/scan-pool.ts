// Runs scanFile over many files, on all cores when there are enough files to be worth it.
// Parsing Markdown is the cost of a cold scan (about a millisecond a note), and it is
// independent per file. Workers load the TypeScript sources through tsx, as the CLI does
// (else through Node's own type stripping); a worker that fails to start hands its files
// back to the main thread.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { scanFile, type ScanFileContext, type ScanFileInput, type ScanFileOutcome } from './scan-file.ts';

/**
 * Below this many files, workers cost more than they save: each one loads the parser (about
 * half a CPU second) and warms up its own JIT (about a second more, measured on 3,000 notes),
 * so they pay off only when the files split between cores outweigh that.
 */
const minFilesForWorkers = 2000;
/** Files per message: small enough to balance the workers and report progress, big enough to amortise a message. */
const batchSize = 50;

function workerExecArgv(): string[] {
  try {
    return ['--import', import.meta.resolve('tsx/esm')];
  } catch {
    return [];
  }
}

export async function scanFiles(
  inputs: ScanFileInput[],
  context: ScanFileContext,
  onProgress?: (done: number, total: number) => void,
  minFiles = minFilesForWorkers,
): Promise<ScanFileOutcome[]> {
  const outcomes: ScanFileOutcome[] = new Array(inputs.length);
  let done = 0;
  const workerCount = Math.min(availableParallelism(), Math.floor(inputs.length / batchSize));
  if (inputs.length < minFiles || workerCount < 2) {
    inputs.forEach((input, i) => {
      outcomes[i] = scanFile(input, context);
      onProgress?.(++done, inputs.length);
    });
    return outcomes;
  }

  const batches: number[][] = [];
  for (let start = 0; start < inputs.length; start += batchSize) {
    batches.push(Array.from({ length: Math.min(batchSize, inputs.length - start) }, (_, k) => start + k));
  }
  let nextBatch = 0;
  const runInline = (batch: number[]) => {
    for (const i of batch) {
      outcomes[i] = scanFile(inputs[i], context);
      onProgress?.(++done, inputs.length);
    }
  };
  const runWorker = () =>
    new Promise<void>((resolve) => {
      const worker = new Worker(new URL('./scan-worker.ts', import.meta.url), { execArgv: workerExecArgv() });
      let current: number[] | null = null;
      let finished = false;
      const finish = () => {
        finished = true;
        void worker.terminate();
        resolve();
      };
      const sendNext = () => {
        if (nextBatch >= batches.length) return finish();
        current = batches[nextBatch++];
        worker.postMessage({ batch: current.map((i) => inputs[i]), context });
      };
      worker.on('message', (results: ScanFileOutcome[]) => {
        current!.forEach((i, k) => (outcomes[i] = results[k]));
        done += current!.length;
        onProgress?.(done, inputs.length);
        sendNext();
      });
      const fallBack = () => {
        // The worker could not run (or died): its batch and the rest go to the main thread.
        if (finished) return;
        if (current) runInline(current);
        current = null;
        while (nextBatch < batches.length) runInline(batches[nextBatch++]);
        finish();
      };
      worker.on('error', fallBack);
      worker.on('exit', fallBack);
      sendNext();
    });
  await Promise.all(Array.from({ length: workerCount }, runWorker));
  return outcomes;
}
