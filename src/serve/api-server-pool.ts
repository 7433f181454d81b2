// kb serve with --api-server-count N above 1: N HTTP servers, each on a worker thread of its
// own, share the port (SO_REUSEPORT: the kernel spreads connections over them), as vLLM's
// --api-server-count runs several API server processes. A burst of requests is then parsed,
// tokenized and streamed by N threads at once instead of one after another. This thread keeps
// the engine and the one metrics registry: the threads send what their requests report once
// a turn, and a scrape on any thread first gathers every thread's reports.
import { createServer } from 'node:net';
import { Worker } from 'node:worker_threads';
import { type Engine, threadEntry } from '../engine/index.ts';
import { type ApiServerData, type FromApiServer, PendingReplies, type ToApiServer } from './api-server-protocol.ts';
import { ServeMetrics } from './serve-metrics.ts';

/** The OS's name for these threads (top -H, /proc/PID/task/TID/comm: 15 characters at most). */
export const API_SERVER_THREAD_NAME = 'kb-api-server';

export interface ApiServerPoolOptions {
  engine: Engine;
  count: number;
  modelName: string;
  version: string;
  maxWaiting: number;
  accessLog?: (line: string) => void;
  /** A thread failed after it started: the server has lost part of its capacity. */
  onThreadError(error: Error): void;
}

export interface ApiServerPool {
  url: string;
  /** Requests being generated now, on every thread. */
  openRequests(): Promise<number>;
  /** Every thread stops accepting and ends its open streams, then lets go of the engine. */
  close(): Promise<void>;
}

/** A listen failure with the code the caller explains (EADDRINUSE, EADDRNOTAVAIL, ...). */
export class ListenError extends Error {
  readonly code: string | undefined;
  constructor(code: string | undefined, message: string) {
    super(message);
    this.code = code;
  }
}

interface ApiThread {
  worker: Worker;
  send(message: ToApiServer): void;
  flushes: PendingReplies<void>;
  counts: PendingReplies<number>;
  closed: Promise<void>;
  /** The thread has exited: nothing it is asked will be answered. */
  gone: boolean;
}

export async function startApiServerPool(options: ApiServerPoolOptions, host: string, requestedPort: number): Promise<ApiServerPool> {
  const { engine } = options;
  // Checked first without SO_REUSEPORT: sockets with it share a port with any other such
  // socket of the same user, so a second kb serve on a taken port would join it silently.
  const port = await freePort(host, requestedPort);
  const metrics = new ServeMetrics(options.modelName, engine.info.model.nCtx, { severalThreads: true });
  const waitingBuffer = new SharedArrayBuffer(4);
  const startedAt = Math.floor(Date.now() / 1000);
  const threads: ApiThread[] = [];
  const live = () => threads.filter((t) => !t.gone);
  let started = false;
  let closing = false;
  // One report of a failed thread: its 'error' is followed by its 'exit'.
  let failed = false;
  const threadFailed = (error: Error) => {
    if (failed || closing) return;
    failed = true;
    options.onThreadError(error);
  };

  const listening = Array.from({ length: options.count }, () => {
    const enginePort = engine.connectPort();
    const data: ApiServerData = {
      enginePort,
      modelName: options.modelName,
      version: options.version,
      maxWaiting: options.maxWaiting,
      waitingBuffer,
      accessLog: options.accessLog !== undefined,
      startedAt,
      host,
      port,
    };
    const worker = new Worker(threadEntry('api-server', new URL('./api-server-thread.js', import.meta.url)), { workerData: data, transferList: [enginePort], name: API_SERVER_THREAD_NAME });
    let closedResolve: () => void = () => {};
    const thread: ApiThread = {
      worker,
      send: (message) => worker.postMessage(message),
      flushes: new PendingReplies<void>(),
      counts: new PendingReplies<number>(),
      closed: new Promise<void>((resolve) => (closedResolve = resolve)),
      gone: false,
    };
    threads.push(thread);
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromApiServer) => {
        switch (message.type) {
          case 'listening':
            return resolve();
          case 'listen-failed':
            return reject(new ListenError(message.code, message.message));
          case 'batch':
            for (let t = message.tokens, i = 0; i < t.length; i += 4) metrics.token(t[i], Number.isNaN(t[i + 1]) ? null : t[i + 1], t[i + 2], t[i + 3]);
            for (const finished of message.finished) metrics.finished(finished);
            for (const line of message.logs) options.accessLog?.(line);
            return;
          case 'scrape':
            void scrape().then((text) => thread.send({ type: 'scraped', id: message.id, metrics: text }));
            return;
          case 'flushed':
            return thread.flushes.answer(message.id, undefined);
          case 'open-requests':
            return thread.counts.answer(message.id, message.count);
          case 'closed':
            return closedResolve();
        }
      });
      worker.on('error', (error: Error) => (started ? threadFailed(error) : reject(error)));
      worker.on('exit', (code) => {
        // A thread that is gone answers nothing more: what it was asked is answered for it (no
        // requests, nothing to flush), or every scrape and the count at shutdown waited forever.
        thread.gone = true;
        thread.flushes.answerAll(undefined);
        thread.counts.answerAll(0);
        closedResolve();
        if (started) threadFailed(new Error(`an API server thread exited (code ${code})`));
      });
    });
  });

  /**
   * Every thread's reports up to now, then the engine's state: one exposition for the whole
   * server. Each thread flushes after a round trip to the engine (api-server-thread.ts), so it
   * has reported every step that ended before `settled`; a later step may still be missing a
   * thread's tokens, and waits for the next scrape.
   */
  async function scrape() {
    const settled = engine.now();
    await Promise.all(live().map((t) => t.flushes.ask((id) => t.send({ type: 'flush', id }))));
    return metrics.scrape(await engine.stats(), settled);
  }

  const closeAll = async () => {
    closing = true;
    for (const t of live()) t.send({ type: 'close' });
    await Promise.all(threads.map((t) => t.closed));
    await Promise.all(threads.map((t) => t.worker.terminate()));
  };

  try {
    await Promise.all(listening);
  } catch (error) {
    await Promise.all(threads.map((t) => t.worker.terminate()));
    throw error;
  }
  started = true;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    openRequests: async () => (await Promise.all(live().map((t) => t.counts.ask((id) => t.send({ type: 'open-requests', id }))))).reduce((a, b) => a + b, 0),
    close: closeAll,
  };
}

/** Binds `port` on `host` alone for a moment (port 0: any free one) and gives it back. */
function freePort(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(new ListenError(error.code, error.message)));
    probe.listen({ host, port, exclusive: true }, () => {
      const address = probe.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      probe.close(() => resolve(bound));
    });
  });
}
