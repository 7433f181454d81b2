// What a full-screen kb screen hands Ink's exit() when the user pressed Ctrl-C, so the
// command can exit 130 (interrupted) instead of 0, after printing its summary as usual.
export const INTERRUPTED = 'interrupted';

export function wasInterrupted(exitResult: unknown): boolean {
  return exitResult === INTERRUPTED;
}
