// The rows a scrolled screen shows, told to the Markdown inside it: a long text draws those
// rows and a few pages around them only (Markdown.tsx), not the whole of it.
import { createContext } from 'react';

export interface ScreenWindow {
  /** The first row shown, counted from the top of the scrolled content. */
  top: number;
  /** How many rows are shown. */
  rows: number;
  /** A text inside says whether it has lines below that it has not drawn yet (their number unknown). */
  setUndrawnBelow(undrawn: boolean): void;
}

/** Null outside a scrolled screen (kb quiz's printed text, tests): Markdown draws all of a text. */
export const ScreenWindowContext = createContext<ScreenWindow | null>(null);
