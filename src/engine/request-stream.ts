// One request as its client sees it: a stream of token events, its timeline filled in as
// events arrive, and a promise of the final result.
import type { RequestTimeline } from './metrics/timeline.ts';
import type { FinishReason } from './core/sequence.ts';

export type StreamEvent =
  | { type: 'token'; token: number; index: number; time: number }
  | { type: 'finish'; reason: FinishReason; time: number }
  | { type: 'error'; message: string; time: number };

export interface RequestResult {
  id: number;
  outputIds: number[];
  /** null when the request failed (see timeline.error). */
  finishReason: FinishReason | null;
  timeline: RequestTimeline;
}

export interface RequestHandle extends AsyncIterable<StreamEvent> {
  readonly id: number;
  /** Filled in live as events arrive. */
  readonly timeline: RequestTimeline;
  /** Resolves when the request finishes or fails; never rejects. */
  readonly done: Promise<RequestResult>;
  abort(): void;
}

export class RequestStream implements RequestHandle {
  readonly id: number;
  readonly timeline: RequestTimeline;
  readonly done: Promise<RequestResult>;
  private readonly outputIds: number[] = [];
  /** The finish or error event, once the request has ended. */
  private ending: StreamEvent | null = null;
  // Iterators waiting for the next event. Events are built when read, so a client that only
  // awaits `done` costs no object per token.
  private waiters: (() => void)[] = [];
  private resolveDone!: (result: RequestResult) => void;
  private readonly onAbort: () => void;

  constructor(id: number, timeline: RequestTimeline, onAbort: () => void) {
    this.id = id;
    this.timeline = timeline;
    this.onAbort = onAbort;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  abort(): void {
    if (this.ending === null) this.onAbort();
  }

  admit(time: number): void {
    // Submitting from an idle engine races the loop by microseconds; the stamp order holds.
    if (this.timeline.admit === null) this.timeline.admit = Math.max(time, this.timeline.submitEnd);
  }

  token(token: number, time: number): void {
    this.timeline.tokenTimes.push(time);
    this.outputIds.push(token);
    this.wake();
  }

  finish(reason: FinishReason, time: number): void {
    this.timeline.finish = time;
    // An aborted request has no complete metrics; the error keeps it out of the summary.
    if (reason === 'aborted') this.timeline.error = 'aborted';
    this.end({ type: 'finish', reason, time }, reason);
  }

  fail(message: string, time: number): void {
    if (this.ending !== null) return;
    this.timeline.error = message;
    this.end({ type: 'error', message, time }, null);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    for (let next = 0; ; ) {
      if (next < this.outputIds.length) {
        yield { type: 'token', token: this.outputIds[next], index: next, time: this.timeline.tokenTimes[next] };
        next++;
      } else if (this.ending !== null) {
        yield this.ending;
        return;
      } else {
        await new Promise<void>((resolve) => this.waiters.push(resolve));
      }
    }
  }

  private wake(): void {
    // Called for every token: a client that only awaits `done` has no waiters, and then costs no new array.
    if (this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private end(ending: StreamEvent, reason: FinishReason | null): void {
    this.ending = ending;
    this.wake();
    this.resolveDone({ id: this.id, outputIds: this.outputIds, finishReason: reason, timeline: this.timeline });
  }
}
