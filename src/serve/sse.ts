// Server-sent events on a raw Node response: OpenAI's streaming wire format, one
// `data: <json>` event per chunk and `data: [DONE]` at the end. Headers go out with the
// first event, so a request the engine refuses before any output still gets a plain 400.
import type { ServerResponse } from 'node:http';

export class SseWriter {
  private readonly res: ServerResponse;
  private started = false;
  private corked = false;

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
    this.res.write(`data: ${json}\n\n`);
  }

  /** Holds what is written next until end(): the last chunk, the usage and [DONE] leave in one write. */
  holdUntilEnd(): void {
    if (this.closed || this.corked) return;
    this.start();
    this.corked = true;
    this.res.cork();
  }

  end(): void {
    if (this.closed) return;
    this.start();
    this.res.write('data: [DONE]\n\n');
    if (this.corked) {
      this.corked = false;
      this.res.uncork();
    }
    this.res.end();
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // Small events must leave at once, not wait for Nagle's algorithm to batch them.
    this.res.socket?.setNoDelay(true);
  }
}
