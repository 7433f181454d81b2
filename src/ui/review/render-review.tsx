// Mounts the review screen on the terminal (alternate screen, as full-screen programs do)
// and returns the one-line summary to print once it is gone.
import { render } from 'ink';
import type { ReviewController } from '../../app/review/screen-contract.ts';
import { ReviewScreen } from './ReviewScreen.tsx';
import { wasInterrupted } from '../screen-input.ts';
import { summaryLine } from './summary-line.ts';
import { screenStream } from '../text/no-color.ts';

/** How the review screen is mounted (bench/review.ts mounts it the same way). */
export const reviewRenderOptions = {
  alternateScreen: true,
  // The caller checked for a terminal. Ink would otherwise draw nothing until exit whenever
  // CI is set in the environment (a developer's shell, a test runner inside CI).
  interactive: true,
  // The screen handles Ctrl-C: it quits, or stops a lab running in place (stored as partial).
  exitOnCtrlC: false,
  // Ink draws at most maxFps frames a second (30 by default), and a key pressed within 33 ms
  // of the last frame waited for the next slot: the next card could come up to 33 ms late.
  // The review screen draws only on a key, a lab's progress or the clock, so it can afford
  // a short slot: 8 ms.
  maxFps: 125,
} as const;

/** The summary line to print, and whether the session ended by Ctrl-C (kb exits 130). */
export async function renderReview(controller: ReviewController, startedAt: number, notice?: string): Promise<{ line: string; interrupted: boolean }> {
  // Under NO_COLOR drawn without colours (no-color.ts).
  const app = render(<ReviewScreen controller={controller} startedAt={startedAt} notice={notice} />, { ...reviewRenderOptions, stdout: screenStream(process.stdout) });
  const interrupted = wasInterrupted(await app.waitUntilExit());
  return { line: summaryLine(controller.summary(Date.now())), interrupted };
}
