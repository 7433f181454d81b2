// Typing into an ink-testing-library render and waiting for what it draws. Waits poll up to
// 5 s: on a loaded machine a frame can take a while, and a passing test returns at once.
import { expect } from 'vitest';

const WAIT_LIMIT_MS = 5000;
const POLL_MS = 10;

export const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

/** Gives a render's terminal a size, as a terminal resized does (ink-testing-library's has none). */
export function resize(app: { stdout: NodeJS.EventEmitter }, columns: number, rows: number): void {
  Object.defineProperty(app.stdout, 'columns', { value: columns, configurable: true });
  Object.defineProperty(app.stdout, 'rows', { value: rows, configurable: true });
  app.stdout.emit('resize');
}

/** The longest run of blank rows in the frame. */
export function blankRun(frame: string): number {
  let longest = 0;
  let run = 0;
  for (const row of frame.split('\n')) {
    run = row.trim() === '' ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** Writes each key to stdin and gives ink a tick to handle it. */
export async function press(stdin: { write(data: string): void }, ...keys: string[]): Promise<void> {
  for (const key of keys) {
    stdin.write(key);
    await tick();
  }
}

/** Waits until the frame satisfies `check`; returns the last frame either way. */
export async function until(frame: () => string | undefined, check: (text: string) => boolean): Promise<string> {
  for (let waited = 0; waited < WAIT_LIMIT_MS; waited += POLL_MS) {
    const text = frame() ?? '';
    if (check(text)) return text;
    await tick(POLL_MS);
  }
  return frame() ?? '';
}

/** The frame shows `text` (once rendered); returns that frame. */
export async function shows(frame: () => string | undefined, text: string): Promise<string> {
  const shown = await until(frame, (current) => current.includes(text));
  expect(shown).toContain(text);
  return shown;
}
