// Server-sent events on a raw Node response: OpenAI's streaming wire format, one
// `data: <json>` event per chunk and `data: [DONE]` at the end. Headers go out with the
// first event, so a request the engine refuses before any output still gets a plain 400.
import type { ServerResponse } from 'node:http';

const DONE = 'data: [DONE]\n\n';

export class SseWriter {
  private readonly res: ServerResponse;
  private started = false;
  /** Events held for the response's one last write (see holdUntilEnd); null while each event leaves at once. */
  private tail: string | null = null;

  constructor(res: ServerResponse) {
    this.res = res;
  }

  /** The client is gone (or the response ended): nothing more can be sent. */
  get closed(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  get hasStarted(): boolean {
    return this.started;
  }

  send(data: unknown): void {
    this.sendJson(JSON.stringify(data));
  }

  /** An event whose JSON is already written (the per-token chunks, built from a template). */
  sendJson(json: string): void {
    if (this.closed) return;
    this.start();
    const event = `data: ${json}\n\n`;
    if (this.tail !== null) this.tail += event;
    else this.res.write(event);
  }

  /**
   * Holds what is sent next until end(): the last chunk, the usage and [DONE] leave with the
   * end of the response in one write to the socket. (Corking the response instead flushes its
   * buffered chunk a piece at a time once uncorked, and end() adds the chunked terminator:
   * about seven writes, each a syscall, where one will do.)
   */
  holdUntilEnd(): void {
    if (this.closed || this.tail !== null) return;
    this.start();
    this.tail = '';
  }

  end(): void {
    if (this.closed) return;
    this.start();
    const last = (this.tail ?? '') + DONE;
    this.tail = null;
    this.res.end(last);
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // Small events must leave at once, not wait for Nagle's algorithm to batch them.
    this.res.socket?.setNoDelay(true);
  }
}
