// The benchmark client spread over worker threads (--client-threads): with 256 requests in a
// burst, one client loop sends them and reads their chunks one at a time, and the last request
// leaves ~0.1-0.2 ms x 256 after the first; vLLM's benchmark has the same limit in one Python
// process. Each thread takes every Kth request of the workload, keeps its own keep-alive pool
// across runs, and times as stream-client.ts does; times come back on one clock
// (performance.timeOrigin + now, the same in every thread).
import { Worker } from 'node:worker_threads';
import type { WorkloadRequest } from '../../src/engine/bench/workload.ts';
import type { StreamOutcome } from './stream-client.ts';

export interface ClientPool {
  /** Runs the workload from `startAt` (epoch ms): each request at its arrival, on thread (index mod K). */
  run(url: string, workload: readonly WorkloadRequest[]): Promise<StreamOutcome[]>;
  close(): Promise<void>;
}

export interface ClientJob {
  url: string;
  /** Epoch ms (timeOrigin-based) at which the run's clock starts. */
  startAt: number;
  requests: { index: number; arrivalMs: number; promptIds: number[]; maxNewTokens: number }[];
}

export function clientPool(threads: number): ClientPool {
  const workers = Array.from({ length: threads }, () => new Worker(new URL('./client-worker.ts', import.meta.url)));
  return {
    async run(url, workload) {
      // A few ms ahead, so every thread is waiting when the run starts.
      const startAt = performance.timeOrigin + performance.now() + 20;
      const parts = await Promise.all(
        workers.map((worker, w) => {
          const requests = workload.flatMap((r, index) => (index % threads === w ? [{ index, arrivalMs: r.arrivalMs, promptIds: r.promptIds, maxNewTokens: r.maxNewTokens }] : []));
          return new Promise<{ index: number; outcome: StreamOutcome }[]>((resolve, reject) => {
            worker.once('message', resolve);
            worker.once('error', reject);
            worker.postMessage({ url, startAt, requests } satisfies ClientJob);
          });
        }),
      );
      const outcomes: StreamOutcome[] = new Array(workload.length);
      // Back on this thread's performance.now() clock, as the one-loop client reports them.
      const shift = performance.timeOrigin;
      for (const part of parts) for (const { index, outcome } of part) outcomes[index] = { ...outcome, start: outcome.start - shift, end: outcome.end - shift };
      return outcomes;
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
