// A scroll offset and its limit, for a screen that owns a Viewport. The limit comes from the
// Viewport's measure; when it shrinks (a larger terminal, a shorter card) the offset comes
// down with it: kept, it showed a few last lines over a blank screen, and each k moved the
// hidden offset instead of the text.
import { useCallback, useState } from 'react';
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
  const by = useCallback((rows: number) => setOffset((at) => clampScroll(at + rows, max)), [max]);
  const reset = useCallback(() => setOffset(0), []);
  const onMaxScroll = useCallback((limit: number) => {
    setMax(limit);
    setOffset((at) => clampScroll(at, limit));
  }, []);
  return { offset, max, by, reset, onMaxScroll };
}
