// A scroll offset and its limit, for a screen that owns a Viewport. The limit comes from the
// Viewport's measure; when it shrinks (a larger terminal, a shorter card) the offset comes
// down with it: kept, it showed a few last lines over a blank screen, and each k moved the
// hidden offset instead of the text.
import { useCallback, useRef, useState } from 'react';
import { clampScroll } from './Viewport.tsx';

export interface Scroll {
  offset: number;
  /** The largest useful offset: 0 when the content fits. */
  max: number;
  /** Moves the offset by `rows`, within 0 and the limit. */
  by(rows: number): void;
  /** Back to the top (a card shown afresh). */
  reset(): void;
  /** The Viewport's onMaxScroll. */
  onMaxScroll(max: number): void;
}

export function useScroll(): Scroll {
  const [offset, setOffset] = useState(0);
  const [max, setMax] = useState(0);
  // The limit last told, read when a move is applied: the Viewport tells a new limit in its
  // effect, and the screen's key effect of the same render then moves with `by` of that render.
  // Clamped to the limit it had seen, a held PgDn went past a note's end (its rest just drawn,
  // the limit smaller) and stayed there over blank rows, the limit told already.
  const limit = useRef(0);
  const by = useCallback((rows: number) => setOffset((at) => clampScroll(at + rows, limit.current)), []);
  const reset = useCallback(() => setOffset(0), []);
  const onMaxScroll = useCallback((told: number) => {
    limit.current = told;
    setMax(told);
    setOffset((at) => clampScroll(at, told));
  }, []);
  return { offset, max, by, reset, onMaxScroll };
}
