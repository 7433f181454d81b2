// Keys typed ahead of the screen. Ink hands an input handler everything one read of the
// terminal returned as a single input: "uq" when u and q came faster than kb read them (a
// loaded machine, tmux send-keys, a paste). kb's screens bind single keys, so such a chunk
// matched none and every key in it was lost. Here a chunk is split into its keys, and each is
// handled after the screen has rendered the one before, as if they had been typed slowly.
import { useInput, type Key } from 'ink';
import { useEffect, useEffectEvent, useRef, useState } from 'react';

export type KeyHandler = (input: string, key: Key) => void;

/** The keys in one input: a run of plain characters is one key each; anything else is one key. */
export function splitKeys(input: string, key: Key): Array<[string, Key]> {
  const characters = Array.from(input);
  if (characters.length <= 1 || key.ctrl || key.meta || key.escape) return [[input, key]];
  return characters.map((character) => [
    character,
    { ...key, return: character === '\r', tab: character === '\t', shift: /^[A-Z]$/.test(character) },
  ]);
}

/** useInput, one key at a time, none lost to a chunk. */
export function useKeys(handler: KeyHandler): void {
  const waiting = useRef<Array<[string, Key]>>([]);
  const [, nextTurn] = useState(0);
  const handleLater = useEffectEvent(handler);
  useInput((input, key) => {
    const keys = splitKeys(input, key);
    // The common case, one key and none waiting, is handled at once as Ink would.
    if (keys.length === 1 && waiting.current.length === 0) return handler(input, key);
    waiting.current.push(...keys);
    nextTurn((turn) => turn + 1);
  });
  // After each render: the next waiting key, then another render for the one after it.
  useEffect(() => {
    const next = waiting.current.shift();
    if (!next) return;
    handleLater(...next);
    if (waiting.current.length > 0) nextTurn((turn) => turn + 1);
  });
}
