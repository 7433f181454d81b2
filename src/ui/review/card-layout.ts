// Layout rules of a card on the screen, shared by kb review and kb quiz.
import { hasTopLevelH1 } from '../markdown/markdown-sections.ts';

/**
 * Text is read most easily at 60-100 characters a line: on a wide terminal the card keeps
 * to this measure instead of running across the whole screen (as a browser's reader view).
 */
export const READABLE_WIDTH = 100;

export function readableWidth(width: number): number {
  return Math.min(width, READABLE_WIDTH);
}

/** Whether a note's full text shows its own title (an H1); a note without one needs its question line. */
export function hasOwnTitle(full: string): boolean {
  // A long note is parsed only as far as its title, not whole (`f` on a 2 MB note).
  return hasTopLevelH1(full);
}
