// Whether the server of an --endpoint run is still there. A server killed mid-run left kb
// sending every remaining request (minutes of a Poisson workload, a sweep's every point), each
// "connection refused", and the run was stored "ok" with its note counting the failures. A
// benchmark client does not hammer a server that is gone: once REQUESTS_IN_A_ROW requests in a
// row failed to connect (refused, reset, unreachable; not an HTTP error such as 429 or 503,
// which a live server sends), sending holds until the first of them is HOLD_MS old and one
// fresh request decides: the server answers (a blip: sending goes on) or it does not (the run
// stops, said as ServerGoneError).
import { connectionLost } from './endpoint-errors.ts';
import { httpCall } from './http-call.ts';
import type { RequestOutcome } from './stream-client.ts';
import { headers, type EndpointTarget } from './target.ts';

export const REQUESTS_IN_A_ROW = 8;
export const HOLD_MS = 2_000;

/** The run stopped because its server went away; its note and kb's one line say this message. */
export class ServerGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerGoneError';
  }
}

export class ServerWatch {
  private readonly target: EndpointTarget;
  /** Requests the server answered (anything but a lost connection), the whole run through. */
  private answered = 0;
  private streak = 0;
  private streakStart = 0;
  private check: Promise<boolean> | null = null;
  private readonly stop = new AbortController();
  /** Set once the server is known gone: why, in one line. */
  goneMessage: string | null = null;

  constructor(target: EndpointTarget) {
    this.target = target;
  }

  /** Aborted once the server is known gone: wakes the requests still waiting for their arrival time. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  record(outcome: RequestOutcome): void {
    if (outcome.lostConnection === undefined) {
      this.answered += 1;
      this.streak = 0;
      return;
    }
    if (this.streak === 0) this.streakStart = outcome.sentAt;
    this.streak += 1;
  }

  /** Throws ServerGoneError once the server is known gone. */
  throwIfGone(): void {
    if (this.goneMessage !== null) throw new ServerGoneError(this.goneMessage);
  }

  /** Whether the next request is not to be sent: waits, while a run of failures is young, for the check. */
  async stopSending(signal: AbortSignal | undefined): Promise<boolean> {
    if (this.goneMessage !== null) return true;
    if (this.streak < REQUESTS_IN_A_ROW) return false;
    // Every request waiting to be sent shares the one check.
    this.check ??= this.confirm(signal).finally(() => (this.check = null));
    return this.check;
  }

  private async confirm(signal: AbortSignal | undefined): Promise<boolean> {
    const wait = this.streakStart + HOLD_MS - performance.now();
    if (wait > 0) await new Promise<void>((resolve) => {
      const timer = setTimeout(done, wait);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
    // Ctrl-C (its own stop), or a request in flight answered meanwhile: the server is there.
    if (signal?.aborted || this.streak < REQUESTS_IN_A_ROW) return false;
    const lost = await this.reachable();
    if (lost === null) {
      this.streak = 0;
      return false;
    }
    this.goneMessage = `the server at ${this.target.shown} stopped answering (${lost}) after ${this.answered} requests`;
    this.stop.abort();
    return true;
  }

  /** One fresh request on a new connection: null when the server answers at all, else how it failed to connect. */
  private async reachable(): Promise<string | null> {
    try {
      await httpCall(`${this.target.base}/models`, { headers: headers(this.target), timeoutMs: Math.min(this.target.timeoutMs, 10_000) });
      return null;
    } catch (error) {
      // Anything else (a timeout) says nothing either way: the requests themselves wait --request-timeout.
      return connectionLost(error);
    }
  }
}
