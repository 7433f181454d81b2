// NO_COLOR (no-color.org): set and not empty, kb adds no colour to what it prints. chalk, which
// Ink draws with, does not read it (found as a power user: kb stats on a terminal stayed
// coloured), so text Ink rendered is stripped of its colours here; bold, dim and inverse stay,
// as the convention asks only for colour to go.

/** Whether the user asked for no colour. */
export function noColorWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.NO_COLOR ?? '') !== '';
}

const SGR = /\x1b\[([0-9;]*)m/g;

/** `text` with every colour taken out of its SGR sequences (foreground, background, 256 and true colour). */
export function withoutColours(text: string): string {
  return text.replace(SGR, (sequence, params: string) => {
    if (params === '') return sequence; // a reset
    const kept: string[] = [];
    const codes = params.split(';');
    for (let at = 0; at < codes.length; at++) {
      const code = Number(codes[at]);
      // 38/48/58;5;n and 38/48/58;2;r;g;b: an extended colour and its arguments.
      if (code === 38 || code === 48 || code === 58) {
        at += codes[at + 1] === '5' ? 2 : codes[at + 1] === '2' ? 4 : 0;
        continue;
      }
      if ((code >= 30 && code <= 39) || (code >= 40 && code <= 49) || (code >= 90 && code <= 97) || (code >= 100 && code <= 107) || code === 59) continue;
      kept.push(codes[at]);
    }
    return kept.length === 0 ? '' : `\x1b[${kept.join(';')}m`;
  });
}

/**
 * The terminal stream a full screen (kb review, kb quiz) is drawn on: under NO_COLOR, one that
 * takes the colours out of every write on the way, bold, dim, underline and inverse kept, so the
 * focus still shows. The components pick their colours through chalk (Ink's <Text color>,
 * borderColor), which knows only all styles or none: stripping at the one stream they all
 * reach covers every component, and one added later, with nothing to remember.
 */
export function screenStream(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): NodeJS.WriteStream {
  if (!noColorWanted(env)) return stream;
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean)(typeof chunk === 'string' ? withoutColours(chunk) : chunk, ...rest);
  // Everything else (columns, rows, isTTY, the resize listeners) is the real stream's, read live.
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
