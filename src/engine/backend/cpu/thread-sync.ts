// Thread coordination over one shared Int32Array. The calling thread posts a command by bumping
// GEN; helpers sleep on it. Inside a forward pass every op ends at a barrier, where threads
// spin briefly and then sleep. Spinning costs well under a microsecond per handoff where
// Atomics.wait costs ~50 µs, but a thread that spins too long steals a core from one still
// working (two cores here), so a barrier spins for a bounded time and an idle helper not at all.

export const CTL = {
  GEN: 0,
  CMD: 1,
  BARRIER_COUNT: 2,
  BARRIER_GEN: 3,
  // The current batch's shape, written by the caller before it posts FORWARD.
  TOKENS: 4,
  SEQS: 5,
  ROWS: 6,
  MAX_BLOCKS_PER_SEQ: 7,
  /** Set by a thread that threw: the others leave their barriers instead of waiting forever. */
  FAILED: 8,
  /** The first work counter (see takeWork); the control array holds as many as createControl was given. */
  WORK: 9,
} as const;

export const CMD = { FORWARD: 1, RELOAD: 2, EXIT: 3 } as const;

// One Atomics.load poll costs ~7 ns here: a barrier spins ~60 µs (longer than the usual
// imbalance between threads, about one Atomics.wait handoff) before sleeping.
const BARRIER_SPINS = 1 << 13;
const FAILURE_CHECK_MS = 50;

export function createControl(workCounters = 0): Int32Array {
  return new Int32Array(new SharedArrayBuffer((CTL.WORK + workCounters) * 4));
}

/** Caller side, while the helpers are idle: every work counter back to its first chunk. */
export function resetWork(ctl: Int32Array): void {
  ctl.fill(0, CTL.WORK);
}

/**
 * The next unclaimed chunk of the op that owns `counter`: 0, 1, 2, ... across all threads, each
 * handed out once. Threads that take chunks until they run out share an op by speed, not by a
 * fixed split: one slowed down (another process took its core, its memory is farther) just
 * takes fewer, and the others do not wait for it at the next barrier.
 */
export function takeWork(ctl: Int32Array, counter: number): number {
  return Atomics.add(ctl, CTL.WORK + counter, 1);
}

/** Caller side: start a command on every helper. */
export function postCommand(ctl: Int32Array, cmd: number): void {
  Atomics.store(ctl, CTL.CMD, cmd);
  Atomics.add(ctl, CTL.GEN, 1);
  Atomics.notify(ctl, CTL.GEN);
}

/**
 * Helper side: block until GEN moves past `seenGen`; returns the new GEN. It sleeps at once.
 * Between two steps the engine hands the step's tokens to the process's main thread, which
 * needs a core right then to pass them on (kb serve writes them to its clients). A helper that
 * spun through that gap (~250 µs, to spare the next step its wake-up) held the core, and on two
 * cores the main thread waited for the scheduler's next tick: up to 4 ms on about every other
 * lone request's first token over HTTP (bench/serve: TTFT overhead p50 ~2.9 ms, ~1.7 ms
 * without the spin). The next step now waits for the helper's wake-up at its first barrier
 * (tens of µs); in-process TPOT and burst throughput did not move beyond the machine's noise.
 */
export function waitForCommand(ctl: Int32Array, seenGen: number): number {
  Atomics.wait(ctl, CTL.GEN, seenGen);
  return Atomics.load(ctl, CTL.GEN);
}

/** Every one of `nThreads` threads calls this; all return once the last one has arrived. */
export function barrier(ctl: Int32Array, nThreads: number): void {
  if (nThreads === 1) return;
  const gen = Atomics.load(ctl, CTL.BARRIER_GEN);
  if (Atomics.add(ctl, CTL.BARRIER_COUNT, 1) === nThreads - 1) {
    Atomics.store(ctl, CTL.BARRIER_COUNT, 0);
    Atomics.add(ctl, CTL.BARRIER_GEN, 1);
    Atomics.notify(ctl, CTL.BARRIER_GEN);
    return;
  }
  for (let i = 0; i < BARRIER_SPINS; i++) {
    if (Atomics.load(ctl, CTL.BARRIER_GEN) !== gen) return;
  }
  while (Atomics.load(ctl, CTL.BARRIER_GEN) === gen) {
    if (Atomics.load(ctl, CTL.FAILED)) throw new Error('cpu backend: another thread of the forward pass failed');
    Atomics.wait(ctl, CTL.BARRIER_GEN, gen, FAILURE_CHECK_MS);
  }
}

/** Marks the pass failed and wakes every thread waiting at a barrier. */
export function markFailed(ctl: Int32Array): void {
  Atomics.store(ctl, CTL.FAILED, 1);
  Atomics.notify(ctl, CTL.BARRIER_GEN);
}

/** This thread's share [start, end) of `total` items, in multiples of `align`. */
export function splitRange(total: number, tid: number, nThreads: number, align = 1): [number, number] {
  const units = Math.ceil(total / align);
  const start = Math.min(total, Math.floor((units * tid) / nThreads) * align);
  const end = Math.min(total, Math.floor((units * (tid + 1)) / nThreads) * align);
  return [start, end];
}
