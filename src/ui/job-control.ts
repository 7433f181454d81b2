// Ctrl-Z in kb review and kb quiz, as in any terminal program: back to the shell, and `fg`
// brings the screen back where it was. The screens read keys in raw mode, where the terminal
// hands Ctrl-Z to kb as a key instead of stopping it; so kb stops itself as the terminal
// would have: Ink gives the terminal back (suspendTerminal), kb's process group gets SIGTSTP,
// and on SIGCONT Ink takes the terminal again and redraws.
import { readFileSync } from 'node:fs';

/** Ink's useApp().suspendTerminal with a callback. */
type SuspendTerminal = (during: () => Promise<void>) => Promise<unknown>;

/**
 * Whether a shell with job control started kb, so that a stopped kb can be resumed. Such a
 * shell runs each job in a process group of its own; kb run as a terminal's own program (or
 * by a script) shares its session leader's group, and stopped, nothing would resume it.
 * Where /proc is missing (macOS), kb assumes a shell.
 */
export function hasJobControl(): boolean {
  if (process.platform === 'win32') return false;
  let stat: string;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return true;
  }
  // "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses.
  const [, , pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return pgrp !== session;
}

/**
 * Stops kb until `fg`, the screen handed back meanwhile, and says for how long (`now`: the
 * screen's clock): time away is no one's answer time. Not stopped (nothing done) without job control.
 */
export async function stopUntilResumed(suspendTerminal: SuspendTerminal, now: () => number): Promise<{ stopped: boolean; awayMs: number }> {
  if (!hasJobControl()) return { stopped: false, awayMs: 0 };
  const left = now();
  await suspendTerminal(
    () =>
      new Promise<void>((resolve) => {
        // With the terminal handed back, nothing else may keep Node's event loop alive (an
        // untimed quiz has no timer): a signal listener does not, and kb would end instead of
        // waiting for fg. A timer does, until SIGCONT.
        const alive = setInterval(() => {}, 60_000);
        process.once('SIGCONT', () => {
          clearInterval(alive);
          // The size first, and React's render of it (scheduled with setImmediate), so that the
          // screen is drawn once, at the new size, when Ink takes the terminal back.
          followTerminalSize();
          setImmediate(() => setImmediate(resolve));
        });
        process.kill(0, 'SIGTSTP');
      }),
  );
  return { stopped: true, awayMs: now() - left };
}

/**
 * A terminal resized while kb was stopped told only its foreground job (SIGWINCH), not kb:
 * back in front, kb reads its size again, and a change redraws the screen to it (Ink and its
 * useWindowSize listen for 'resize'). Without this the old width was drawn into the new one.
 */
function followTerminalSize(stream: NodeJS.WriteStream = process.stdout): void {
  // Node's own SIGWINCH handler: it asks the terminal (getWindowSize only returns what it last
  // asked) and emits 'resize' when the size changed.
  const refresh = (stream as NodeJS.WriteStream & { _refreshSize?: () => void })._refreshSize;
  if (stream.isTTY && typeof refresh === 'function') refresh.call(stream);
}

export const NO_JOB_CONTROL = 'Ctrl-Z: kb was not started from a shell with job control, so it keeps running';
