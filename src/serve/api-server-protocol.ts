// Messages between kb serve's main thread (the engine's owner and the metrics' keeper) and its
// API server threads (--api-server-count above 1), each an HTTP server on the same port.
import type { MessagePort } from 'node:worker_threads';
import type { FinishedRequest, MetricsText } from './serve-metrics.ts';

export interface ApiServerData {
  /** This thread's way to the engine (engine.connectPort()), passed in the transfer list. */
  enginePort: MessagePort;
  modelName: string;
  version: string;
  maxWaiting: number;
  /** The server's one count of requests not yet started (waiting-count.ts). */
  waitingBuffer: SharedArrayBuffer;
  accessLog: boolean;
  /** Unix seconds the server started: /v1/models says the same on every thread. */
  startedAt: number;
  host: string;
  port: number;
}

/** A turn's worth of what requests reported: per token [time, previous or NaN, arrival, prompt tokens]. */
export interface MetricsBatch {
  tokens: number[];
  finished: FinishedRequest[];
  logs: string[];
}

export type ToApiServer =
  | { type: 'flush'; id: number }
  | { type: 'scraped'; id: number; metrics: MetricsText }
  | { type: 'open-requests'; id: number }
  | { type: 'close' };

export type FromApiServer =
  | { type: 'listening'; port: number }
  | { type: 'listen-failed'; code: string | undefined; message: string }
  | ({ type: 'batch' } & MetricsBatch)
  | { type: 'scrape'; id: number }
  | { type: 'flushed'; id: number }
  | { type: 'open-requests'; id: number; count: number }
  | { type: 'closed' };

/** Questions sent with an id, answered by a message carrying it back. */
export class PendingReplies<T> {
  private next = 0;
  private readonly waiting = new Map<number, (value: T) => void>();

  ask(send: (id: number) => void): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve) => {
      this.waiting.set(id, resolve);
      send(id);
    });
  }

  answer(id: number, value: T): void {
    this.waiting.get(id)?.(value);
    this.waiting.delete(id);
  }

  /** Answers every question still open with `value` (the other side is gone). */
  answerAll(value: T): void {
    for (const resolve of this.waiting.values()) resolve(value);
    this.waiting.clear();
  }
}
