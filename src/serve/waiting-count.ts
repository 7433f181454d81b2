// Requests submitted that have not produced a token yet, counted against --max-waiting. One
// count for the whole server: with several API server threads it lives in shared memory, so
// a thread's 429 looks at what every thread holds.

export class WaitingCount {
  private readonly count: Int32Array;

  /** A count of its own, or the one behind `buffer` (a SharedArrayBuffer every thread holds). */
  constructor(buffer: SharedArrayBuffer | ArrayBuffer = new ArrayBuffer(4)) {
    this.count = new Int32Array(buffer);
  }

  /** Counts one more unless `limit` are waiting already; says whether it did. */
  tryAdd(limit: number): boolean {
    for (;;) {
      const now = Atomics.load(this.count, 0);
      if (now >= limit) return false;
      if (Atomics.compareExchange(this.count, 0, now, now + 1) === now) return true;
    }
  }

  /** One waiting request started (or ended without starting). */
  remove(): void {
    Atomics.sub(this.count, 0, 1);
  }

  get value(): number {
    return Atomics.load(this.count, 0);
  }
}
