// How much of a note's body its card needs: up to the heading that closes its answer section.
//
// Parsing Markdown is most of a cold scan, and most of a note (the detailed part, its code
// and tables) comes after the answer. CommonMark reads blocks line by line, and a line that
// is an ATX heading (`## …`) at the top level closes every open block, whatever follows: so
// a prefix ending with such a line gives exactly the blocks the whole body gives, up to that
// line. This module only guesses the prefix from the raw lines; parseNote checks the guess on
// the real parse, and reads the whole body whenever the prefix does not settle the card.
import type { RootContent } from 'mdast';
import { answerHeadingRank } from './answer-heading.ts';
import { startOffset } from './markdown.ts';

/** A line that looks like an ATX heading: its `#` marks and its text (`\r` included). */
const ATX_LINE = /^ {0,3}(#{1,6})(?:[ \t]([^\n]*))?$/gm;

/** Heading text from a raw line, as plainHeadingText gives it from the parse. */
function rawHeadingText(raw: string): string {
  return raw.replace(/\r$/, '').replace(/[ \t]+#+[ \t]*$/, '').replace(/[*_`~]|\[|\]\([^)]*\)|\]/g, '').trim();
}

/**
 * Offset just past the line of the heading that ends the note's first answer section (the
 * next heading as high as the answer's), or null when the raw lines show none.
 */
export function answerPrefixEnd(body: string): number | null {
  let h1Seen = false;
  let answerDepth = 0;
  for (const match of body.matchAll(ATX_LINE)) {
    const depth = match[1].length;
    if (answerDepth > 0) {
      if (depth > answerDepth) continue;
      const lineEnd = match.index + match[0].length;
      return lineEnd < body.length ? lineEnd + 1 : lineEnd;
    }
    const isFront = depth === 1 && !h1Seen;
    if (depth === 1) h1Seen = true;
    if (!isFront && answerHeadingRank(rawHeadingText(match[2] ?? '')) === 0) answerDepth = depth;
  }
  return null;
}

/**
 * Whether the parse of `prefix` ends with a top-level ATX heading on its last line: then each
 * of its blocks is the same block, at the same offsets, in any text that starts with `prefix`.
 */
export function endsWithTopLevelAtxHeading(prefix: string, children: RootContent[]): boolean {
  const last = children.at(-1);
  if (!last || last.type !== 'heading') return false;
  const start = startOffset(last);
  const lineStart = Math.max(prefix.lastIndexOf('\n', start - 1), prefix.lastIndexOf('\r', start - 1)) + 1;
  return /^ {0,3}$/.test(prefix.slice(lineStart, start)) && /^ {0,3}#{1,6}(?:[ \t][^\r\n]*)?(?:\r\n|\r|\n)?$/.test(prefix.slice(lineStart));
}
