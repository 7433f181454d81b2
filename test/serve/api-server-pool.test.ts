// kb serve --api-server-count's pool when one of its threads dies after start: the server is
// told (it stops, exit 1), and what it asks every thread (the count of open requests at
// shutdown, a scrape's flush) is still answered by the threads left, not waited on forever.
import type { Worker as WorkerType } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine, type Engine } from '../../src/engine/index.ts';
import { API_SERVER_THREAD_NAME, type ApiServerPool, startApiServerPool } from '../../src/serve/api-server-pool.ts';

// The pool's threads, as it starts them (the engine's own worker is left out by its name).
const apiThreads = vi.hoisted(() => [] as WorkerType[]);
// The start time each was given (/v1/models' created).
const startTimes = vi.hoisted(() => [] as unknown[]);
vi.mock('node:worker_threads', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:worker_threads')>();
  class TrackedWorker extends actual.Worker {
    constructor(...args: ConstructorParameters<typeof actual.Worker>) {
      super(...args);
      if (args[1]?.name === 'kb-api-server') {
        apiThreads.push(this);
        startTimes.push((args[1].workerData as { startedAt?: unknown }).startedAt);
      }
    }
  }
  return { ...actual, Worker: TrackedWorker };
});

let engine: Engine | undefined;
let pool: ApiServerPool | undefined;
afterEach(async () => {
  await pool?.close();
  await engine?.close();
  apiThreads.length = 0;
  startTimes.length = 0;
});

/** `promise`, or a rejection naming what never came. */
function within<T>(promise: Promise<T>, what: string, ms = 3000): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms).unref())]);
}

describe('the API server pool', () => {
  it('reports a thread that exits after start once, and answers for the threads left', async () => {
    expect(API_SERVER_THREAD_NAME).toBe('kb-api-server');
    engine = await createEngine({ model: 'gpt2-tiny', backend: 'cpu', threads: 1 });
    const failures: Error[] = [];
    pool = await startApiServerPool({ engine, count: 2, modelName: 'gpt2-tiny', version: 'test', maxWaiting: 8, onThreadError: (e) => failures.push(e) }, '127.0.0.1', 0);
    expect(apiThreads).toHaveLength(2);
    await apiThreads[0].terminate();
    await vi.waitFor(() => expect(failures).toHaveLength(1));
    expect(failures[0].message).toMatch(/an API server thread exited/);
    // Asked of every thread: the dead one answered nothing, and this waited forever.
    expect(await within(pool.openRequests(), 'openRequests')).toBe(0);
    // The thread left still serves, /metrics included (its scrape flushes every thread).
    const metrics = await within(fetch(`${pool.url}/metrics`).then((r) => r.text()), '/metrics');
    expect(metrics).toMatch(/^vllm:num_requests_running\{/m);
    await within(pool.close(), 'close');
    pool = undefined;
    expect(failures).toHaveLength(1);
  }, 30_000);

  it('gives every thread one start time, so /v1/models says the same `created` on any connection', async () => {
    engine = await createEngine({ model: 'gpt2-tiny', backend: 'cpu', threads: 1 });
    pool = await startApiServerPool({ engine, count: 3, modelName: 'gpt2-tiny', version: 'test', maxWaiting: 8, onThreadError: () => {} }, '127.0.0.1', 0);
    // Each thread stamped its own start: threads started in different seconds disagreed.
    const given = new Set(startTimes);
    expect(given.size).toBe(1);
    const [startedAt] = given;
    expect(typeof startedAt).toBe('number');
    const models = (await fetch(`${pool.url}/v1/models`).then((r) => r.json())) as { data: { created: number }[] };
    expect(models.data[0].created).toBe(startedAt);
  }, 30_000);
});
