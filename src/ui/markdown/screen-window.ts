// The rows a scrolled screen shows, told to the Markdown inside it: a long text draws those
// rows and a few pages around them only (Markdown.tsx), not the whole of it.
import { createContext } from 'react';
import type { DOMElement } from 'ink';

export interface ScreenWindow {
  /** The first row shown, counted from the top of the scrolled content. */
  top: number;
  /** How many rows are shown. */
  rows: number;
  /**
   * A text inside says it has lines below that it has not drawn yet (their number unknown),
   * and calls the function returned once it has drawn them all (or goes). Counted per text: a
   * long question drawn to its end cleared the flag of the long answer under it, and the
   * screen then counted the answer's lines drawn so far as all there were.
   */
  undrawnBelow(): () => void;
  /** The row of the scrolled content at which `element` starts (measured: call it after a render). */
  rowOf(element: DOMElement): number;
}

/** Null outside a scrolled screen (kb quiz's printed text, tests): Markdown draws all of a text. */
export const ScreenWindowContext = createContext<ScreenWindow | null>(null);

/** Pages of a screen drawn above and below the rows it shows. */
const PAGES_AROUND = 2;

/**
 * Which of a long text's lines to draw, [from, to), for a text whose first line is at row
 * `textTop` of the scrolled content and `drawn` lines of which are drawn so far: the rows
 * shown and PAGES_AROUND pages either side, in the text's own lines (`to` may pass `drawn`:
 * the lines to draw next). A card's answer starts below its question: counted from the
 * content's top instead, the answer under a question taller than two pages drew lines that
 * were not on screen and stood blank rows where its first lines were. `from` stays within the
 * lines drawn: a text scrolled past stands as tall as its lines, not as far as the screen is.
 */
export function linesToDraw(window: Pick<ScreenWindow, 'top' | 'rows'>, textTop: number, drawn: number): { from: number; to: number } {
  const top = window.top - textTop;
  const from = Math.min(drawn, Math.max(0, top - PAGES_AROUND * window.rows));
  const to = Math.max(0, top + (1 + PAGES_AROUND) * window.rows);
  return { from, to };
}
