// How the sim's loop hands the turn to its clients between steps and wake-ups. The sim runs on
// the main thread with its clients, so it must let them act on what it just handed them (events,
// a wake-up: they submit, abort, sleep again) before it schedules the next step, or a request
// would join a later step than it does with a real backend.
//
// Clients act through promises, and letting the microtask queue drain is enough for that: a
// process.nextTick callback queued now runs only once every pending microtask (and each one
// those queue in turn) has run. A full turn of the event loop (setImmediate) is what I/O, timers,
// signals (Ctrl-C) and progress output need; taking one at every step cost ~1 s of idle polling
// per 100,000 requests, so one is taken only when TURN_BUDGET_MS of real time have passed since
// the last.

/** Real time the loop may run on microtask turns alone before it lets the event loop turn. */
export const TURN_BUDGET_MS = 10;

/** A function that gives the clients their turn: resolves once they have had it. */
export function clientTurns(budgetMs: number = TURN_BUDGET_MS): () => Promise<void> {
  // The first turn is a full one: the loop starts after its creator's setup, whatever that awaits.
  let lastTurn = -Infinity;
  const eventLoopTurn = (resolve: () => void) => setImmediate(resolve);
  const microtaskTurn = (resolve: () => void) => process.nextTick(resolve);
  return () => {
    const now = performance.now();
    if (now - lastTurn < budgetMs) return new Promise<void>(microtaskTurn);
    lastTurn = now;
    return new Promise<void>(eventLoopTurn);
  };
}
