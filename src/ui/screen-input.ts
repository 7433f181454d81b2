// How a full-screen kb screen (kb review, kb quiz) takes its keys and how it ends.
//
// Keys typed ahead of the screen: Ink hands an input handler everything one read of the
// terminal returned as a single input, "uq" when u and q came faster than kb read them (a
// loaded machine, tmux send-keys, a paste). kb's screens bind single keys, so such a chunk
// matched none and every key in it was lost. useKeyQueue splits a chunk into its keys and gives
// the screen one after each render, as if they had been typed slowly; the screen handles it in
// its own effect, so a key's work (a rating, say) starts in the screen that binds the key:
//
//   const nextKey = useKeyQueue({ paused });
//   useEffect(() => {
//     const typed = nextKey();
//     if (typed === null) return;
//     try { onKey(...typed); } catch (error) { exit(asError(error)); }
//   });
//
// Ending: Ctrl-C hands Ink's exit() INTERRUPTED, so the command exits 130 (interrupted)
// instead of 0, after printing its summary as usual. A key handler or timer that throws (a
// database locked past its wait, a full disk) must not leave a raw stack trace over a
// half-drawn screen, nor print its reason on the alternate screen that closes with it: the
// screen closes with the error instead (the catch above, exitOnError for a timer), Ink gives
// the terminal back, and kb's top-level handler prints the one-line reason.
import { useInput, type Key } from 'ink';
import { useRef, useState } from 'react';

export const INTERRUPTED = 'interrupted';

export function wasInterrupted(exitResult: unknown): boolean {
  return exitResult === INTERRUPTED;
}

type Exit = (error?: Error) => void;

/** What a handler threw, as the Error the screen closes with. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Wraps a synchronous handler: what it throws closes the screen with that error. */
export function exitOnError<Args extends unknown[]>(exit: Exit, handler: (...args: Args) => void): (...args: Args) => void {
  return (...args) => {
    try {
      handler(...args);
    } catch (error) {
      exit(asError(error));
    }
  };
}

/** For promises started from the screen: a rejection closes it with that error. */
export function exitOnRejection(exit: Exit): (error: unknown) => void {
  return (error) => exit(asError(error));
}

/**
 * A control character inside a chunk, as Ink gives the same key read alone: Ctrl-Z (0x1a) is
 * input "z" with ctrl. Ink splits only Ctrl-C and backspace out of a chunk, so Ctrl-Z typed
 * right after a rating ("3" then Ctrl-Z, read at once) came as a character no key matched,
 * and kb stayed on screen. Tab, Enter and Ctrl-J keep the names they have in pasted text.
 */
function controlKey(character: string, key: Key): [string, Key] | null {
  const code = character.charCodeAt(0);
  if (character.length !== 1 || code < 0x01 || code > 0x1a || '\b\t\n\r'.includes(character)) return null;
  return [String.fromCharCode(code + 0x60), { ...key, ctrl: true, return: false, tab: false, shift: false }];
}

/** The keys in one input: a run of plain characters is one key each; anything else is one key. */
export function splitKeys(input: string, key: Key): Array<[string, Key]> {
  let characters = Array.from(input);
  if (characters.length <= 1 || key.ctrl || key.meta || key.escape) return [[input, key]];
  // What came after Ctrl-Z in the same read is dropped, as a terminal flushes its input when the
  // suspend key stops a program: kept, "3 Ctrl-Z 4" rated the next card 4 after fg.
  const suspend = characters.indexOf('\x1a');
  if (suspend >= 0) characters = characters.slice(0, suspend + 1);
  return characters.map(
    (character) =>
      controlKey(character, key) ?? [
        character,
        { ...key, return: character === '\r', tab: character === '\t', shift: /^[A-Z]$/.test(character) },
      ],
  );
}

/**
 * The keys typed ahead, one per render (none lost to a chunk): call the function it returns in
 * an effect that runs after every render; it gives the key to handle now, or null (none
 * waits, or the screen is paused). Every key waits for a render: handled at once, a key that
 * came before the screen had drawn the last one's change saw the screen as it was ("5 GB" then
 * Enter checked "5 G").
 */
export function useKeyQueue(options: { paused?: boolean } = {}): () => [string, Key] | null {
  // Each key with the number of the last render before it came.
  const waiting = useRef<Array<{ keys: [string, Key]; after: number }>>([]);
  const renders = useRef(0);
  const thisRender = ++renders.current;
  const [, nextTurn] = useState(0);
  useInput((input, key) => {
    waiting.current.push(...splitKeys(input, key).map((keys) => ({ keys, after: renders.current })));
    nextTurn((turn) => turn + 1);
  });
  // After each render: the next waiting key, then another render for the one after it. A key
  // waits for a render begun after it came: the effects of the render before it may still be
  // pending when it comes, and what they measure (the key list's height, so whether j scrolls
  // it) reaches the screen's state only in the next render. While paused (the screen reloads a
  // card after the editor), keys wait, and the render that ends the pause takes them up.
  return () => {
    if (options.paused) return null;
    const next = waiting.current[0];
    if (!next || next.after >= thisRender) return null;
    waiting.current.shift();
    if (waiting.current.length > 0) nextTurn((turn) => turn + 1);
    return next.keys;
  };
}
