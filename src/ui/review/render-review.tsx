// Mounts the review screen on the terminal (alternate screen, as full-screen programs do)
// and returns the one-line summary to print once it is gone.
import { render } from 'ink';
import { durationLabel } from '../../srs/interval-label.ts';
import type { ReviewController } from '../../app/review/screen-contract.ts';
import { ReviewScreen } from './ReviewScreen.tsx';
import { wasInterrupted } from '../screen-input.ts';

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
  const app = render(<ReviewScreen controller={controller} startedAt={startedAt} notice={notice} />, reviewRenderOptions);
  const interrupted = wasInterrupted(await app.waitUntilExit());
  return { line: summaryLine(controller), interrupted };
}

function summaryLine(controller: ReviewController): string {
  const summary = controller.summary(Date.now());
  // An again rate of no cards says nothing: left out.
  const again = summary.cards === 0 ? '' : `; again ${Math.round((summary.again / summary.cards) * 100)}%`;
  const { learning, review, new: fresh } = summary.stillDue;
  const left = [[learning, 'learning'], [review, 'review'], [fresh, 'new']].filter(([count]) => count !== 0).map(([count, kind]) => `${count} ${kind}`);
  const still = left.length > 0 ? `; still due: ${left.join(', ')}` : '';
  // A card rated Good a minute ago comes back in minutes: "later today", not "tomorrow".
  const later = summary.laterToday > 0 ? `${summary.laterToday} more later today, ` : '';
  return `Reviewed ${summary.cards} card${summary.cards === 1 ? '' : 's'} in ${durationLabel(summary.elapsedMs)}${again}${still}; ${later}tomorrow ${summary.tomorrow} due.`;
}
