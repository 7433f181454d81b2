// At most N requests in flight (--max-concurrency): the rest wait on the client, as
// `vllm bench serve` makes them wait, and their TTFT starts only when they are sent.
export class Semaphore {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(limit: number) {
    this.free = limit;
  }
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}
