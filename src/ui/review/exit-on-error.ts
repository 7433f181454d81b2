// A key handler that throws (a database locked past its wait, a full disk) must not leave a
// raw stack trace over a half-drawn screen: the screen closes with the error instead, Ink
// gives the terminal back, and kb's top-level handler prints the one-line reason.
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
