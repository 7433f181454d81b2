// A fixed-height window on content taller than the screen, scrolled by the screen's keys.
// The content is measured after each render; only when that changes what the last row
// says is there a second render (most cards fit, so most ratings draw one frame).
import { Box, Text, measureElement, type DOMElement } from 'ink';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ScreenWindowContext, type ScreenWindow } from '../markdown/screen-window.ts';

interface ViewportProps {
  height: number;
  scroll: number;
  /** Told the largest useful scroll offset whenever it changes (the content's or the terminal's height); the owner clamps its offset to it. */
  onMaxScroll: (max: number) => void;
  children: ReactNode;
}

/** Pages a screen may scroll past a long text's lines drawn so far, while more are to come. */
const UNDRAWN_ROWS_AHEAD = 4;

/** An offset within 0 and `max`: a screen clamps its own offset when the Viewport reports a new `max`. */
export function clampScroll(offset: number, max: number): number {
  return Math.max(0, Math.min(max, offset));
}

/** `undrawn`: a long text inside has lines below not yet drawn, so their number is not known. */
export function indicator(below: number, scroll: number, undrawn = false): string {
  if (undrawn) return '↓ more lines (j/k, arrows, PgUp/PgDn)';
  if (below > 0) return `↓ ${below} more line${below === 1 ? '' : 's'} (j/k, arrows, PgUp/PgDn)`;
  return scroll > 0 ? '↑ (k to scroll back)' : ' ';
}

/** The row of `element` counted from the top of `content` (both laid out); 0 before `content` is. */
function rowWithin(element: DOMElement, content: DOMElement | null): number {
  return content ? measureElement(element).y - measureElement(content).y : 0;
}

export function Viewport({ height, scroll, onMaxScroll, children }: ViewportProps) {
  const content = useRef<DOMElement>(null);
  // The last row tells whether there is more below.
  const bodyHeight = Math.max(1, height - 1);
  const [hint, setHint] = useState(' ');
  // Told only on a change: each call may re-render the screen, which runs this effect again.
  const told = useRef<{ max: number; hint: string } | null>(null);
  // How many long texts inside have lines below not drawn yet (a card's question and its
  // answer may both). Counted in a ref, read by the measure below: a text says so in its own
  // effect, which runs just before the measure of the same commit (as a state, the measure saw
  // the count of the render before).
  const undrawnTexts = useRef(0);
  const [, setUndrawnTexts] = useState(0);
  const undrawnBelow = useCallback(() => {
    setUndrawnTexts(++undrawnTexts.current);
    return () => setUndrawnTexts(--undrawnTexts.current);
  }, []);
  // The rows shown, for a long text inside to draw those only (Markdown.tsx).
  const shown = useMemo<ScreenWindow>(
    () => ({ top: scroll, rows: bodyHeight, undrawnBelow, rowOf: (element) => rowWithin(element, content.current) }),
    [scroll, bodyHeight, undrawnBelow],
  );
  useEffect(() => {
    if (!content.current) return;
    const measured = measureElement(content.current).height;
    const undrawn = undrawnTexts.current > 0;
    const fits = Math.max(0, measured - bodyHeight);
    // Below a long text's drawn lines there is more, drawn as the screen reaches it: keys
    // typed ahead of the drawing (PgDn held down) scroll on into it rather than stop there.
    // Nor is the offset brought down to the lines drawn so far: at another width a long text
    // is drawn afresh, and brought down to its few rows, the card showed from its top.
    const max = undrawn ? Math.max(fits + UNDRAWN_ROWS_AHEAD * bodyHeight, scroll) : fits;
    const next = indicator(measured - bodyHeight - scroll, scroll, undrawn);
    if (told.current?.max !== max) onMaxScroll(max);
    if (told.current?.hint !== next) setHint(next);
    told.current = { max, hint: next };
  });
  return (
    <Box flexDirection="column" height={height}>
      <Box height={bodyHeight} overflowY="hidden" flexDirection="column">
        <Box ref={content} flexDirection="column" flexShrink={0} marginTop={-scroll}>
          <ScreenWindowContext.Provider value={shown}>{children}</ScreenWindowContext.Provider>
        </Box>
      </Box>
      {/* One row, whatever the width: wrapped at 40 columns, it pushed the screen past the terminal's height. */}
      <Text dimColor wrap="truncate-end">{hint}</Text>
    </Box>
  );
}
