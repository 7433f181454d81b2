// How a full-screen kb screen ends. Ctrl-C hands Ink's exit() INTERRUPTED, so the command
// exits 130 (interrupted) instead of 0, after printing its summary as usual. A key handler or
// timer that throws (a database locked past its wait, a full disk) must not leave a raw stack
// trace over a half-drawn screen, nor print its reason on the alternate screen that closes
// with it: the screen closes with the error instead, Ink gives the terminal back, and kb's
// top-level handler prints the one-line reason.
export const INTERRUPTED = 'interrupted';

export function wasInterrupted(exitResult: unknown): boolean {
  return exitResult === INTERRUPTED;
}

type Exit = (error?: Error) => void;

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Wraps a synchronous handler: what it throws closes the screen with that error. */
export function exitOnError<Args extends unknown[]>(exit: Exit, handler: (...args: Args) => void): (...args: Args) => void {
  return (...args) => {
    try {
      handler(...args);
    } catch (error) {
      exit(asError(error));
    }
  };
}

/** For promises started from the screen: a rejection closes it with that error. */
export function exitOnRejection(exit: Exit): (error: unknown) => void {
  return (error) => exit(asError(error));
}
