// One of kb serve's API server threads (--api-server-count above 1): a whole HTTP server on the
// shared port, submitting to the one engine over its own port to it. What its requests report
// for /metrics goes to the main thread once a turn; a scrape it answers asks the main thread,
// which gathers every thread's reports first.
import { parentPort, workerData } from 'node:worker_threads';
import { connectEngine } from '../engine/index.ts';
import { type ApiServerData, type FromApiServer, type MetricsBatch, PendingReplies, type ToApiServer } from './api-server-protocol.ts';
import { createServeApp } from './serve-app.ts';
import type { FinishedRequest, MetricsText, RequestMetrics } from './serve-metrics.ts';
import { WaitingCount } from './waiting-count.ts';

const data = workerData as ApiServerData;
const toMain = parentPort!;
const post = (message: FromApiServer) => toMain.postMessage(message);

/** Requests' reports, held for the end of the turn and then sent in one message. */
class ForwardedMetrics implements RequestMetrics {
  private batch: MetricsBatch = { tokens: [], finished: [], logs: [] };
  private scheduled = false;

  token(time: number, previous: number | null, arrival: number, promptTokens: number): void {
    this.batch.tokens.push(time, previous ?? Number.NaN, arrival, promptTokens);
    this.schedule();
  }

  finished(r: FinishedRequest): void {
    this.batch.finished.push(r);
    this.schedule();
  }

  log(line: string): void {
    this.batch.logs.push(line);
    this.schedule();
  }

  flush(): void {
    const { batch } = this;
    if (batch.tokens.length === 0 && batch.finished.length === 0 && batch.logs.length === 0) return;
    this.batch = { tokens: [], finished: [], logs: [] };
    post({ type: 'batch', ...batch });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }
}

// A function, not top-level await: the bundle of this thread is CommonJS (bin/bundle.js).
async function main(): Promise<void> {
  const engine = await connectEngine(data.enginePort);
  const metrics = new ForwardedMetrics();
  const scrapes = new PendingReplies<MetricsText>();
  const server = createServeApp({
    engine,
    modelName: data.modelName,
    version: data.version,
    maxWaiting: data.maxWaiting,
    waiting: new WaitingCount(data.waitingBuffer),
    startedAt: data.startedAt,
    metrics: {
      requests: metrics,
      scrape: () => {
        metrics.flush();
        return scrapes.ask((id) => post({ type: 'scrape', id }));
      },
    },
    ...(data.accessLog ? { accessLog: (line: string) => metrics.log(line) } : {}),
  });

  toMain.on('message', (message: ToApiServer) => {
    switch (message.type) {
      case 'flush':
        // The engine posts a step's tokens to every thread before it answers a later question,
        // on the same port: once it has answered this one, every step that ended before the
        // scrape began is here. A turn later their requests have reported them (api-server-pool.ts).
        // (stats() is the round trip: in kb serve nothing else takes its peaks or usage points.)
        void engine
          .stats()
          .catch(() => undefined)
          .then(() => new Promise((resolve) => setImmediate(resolve)))
          .then(() => {
            metrics.flush();
            post({ type: 'flushed', id: message.id });
          });
        return;
      case 'scraped':
        return scrapes.answer(message.id, message.metrics);
      case 'open-requests':
        return post({ type: 'open-requests', id: message.id, count: server.active.size });
      case 'close':
        void server
          .close()
          .then(() => metrics.flush())
          .then(() => engine.close())
          .then(() => {
            post({ type: 'closed' });
            toMain.close();
          });
        return;
    }
  });

  try {
    const address = await server.listen(data.host, data.port, true);
    post({ type: 'listening', port: address.port });
  } catch (error) {
    post({ type: 'listen-failed', code: (error as NodeJS.ErrnoException).code, message: (error as Error).message });
    await engine.close();
    toMain.close();
  }
}

// A failure rejects main(): unhandled, it ends the thread, and the main thread's error handler says so.
void main();
