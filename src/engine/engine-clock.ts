// Every timestamp in the engine is milliseconds on one clock. The real clock is the OS
// monotonic clock (CLOCK_MONOTONIC behind process.hrtime), which every thread of the process
// reads alike, so a stamp taken in the engine worker compares with one taken on the main
// thread. The sim backend swaps in a virtual clock that only moves when the engine says so.

export interface Clock {
  now(): number;
}

export const monotonicClock: Clock = {
  now: () => Number(process.hrtime.bigint()) / 1e6,
};

export class VirtualClock implements Clock {
  private time = 0;

  now(): number {
    return this.time;
  }

  /** Moves time forward; it never goes back. */
  advanceTo(time: number): void {
    if (time > this.time) this.time = time;
  }
}
