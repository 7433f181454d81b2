// Greedy line wrapping in terminal cells: breaks where UAX #14 allows (line-break.ts), widths
// from string-width (Chinese characters take two cells). A line never starts with a space the
// text did not start with: the spaces at a break are dropped, as every reader's wrap does.
// (Ink's own wrap, wrap-ansi, keeps them and breaks only at spaces.)
import stringWidth from 'string-width';
import { breakOpportunities, pathRanges } from './line-break.ts';

/** A line as a range [start, end) of the text, without the spaces or newline it broke at. */
export type LineRange = [number, number];

const segmenter = new Intl.Segmenter();
const TRAILING_SPACE = /[ \t\u3000]+$/;
const HARD_BREAK = /(?:\r\n|[\n\r\v\f\x85\u2028\u2029])$/;

export interface WrapOptions {
  /**
   * A path or URL is never broken, even one wider than the line: it stands whole on a line of
   * its own and runs past the width. For printed output, on a terminal (whose own wrap keeps it
   * one line to copy) and through a pipe (whose reader gets it whole); a screen (Ink) breaks
   * one that does not fit, as UAX #14 allows.
   */
  wholePaths?: boolean;
}

/** Lines of `text` that each fit `width` cells (a whole path aside); a newline always ends a line. */
export function wrapRanges(text: string, width: number, options: WrapOptions = {}): LineRange[] {
  // Text that fits needs no break opportunities (nor the table that finds them, loaded on
  // first use). No character is wider than two cells, so a short text is not even measured;
  // one with more UTF-16 units than cells (zero-width marks aside) cannot fit.
  const fits = !/[\n\r\v\f\x85\u2028\u2029]/.test(text) && (text.length * 2 <= width || (text.length <= width && stringWidth(text) <= width));
  if (fits) return [[0, text.length]];
  const lines: LineRange[] = [];
  let start = -1; // the current line's start; -1 while it is empty
  let end = 0; // its end without trailing spaces
  let used = 0; // cells from start to end
  let spaceEnd = 0; // its end with the spaces that follow (kept if more text joins the line)
  let from = 0;
  const close = () => {
    lines.push([start, end]);
    start = -1;
    used = 0;
  };
  const paths = options.wholePaths ? pathRanges(text) : [];
  for (const { position, required } of breakOpportunities(text, width, options.wholePaths)) {
    // A chunk: text up to the next opportunity; a required break's newline is not text.
    let chunk = text.slice(from, position);
    if (required) chunk = chunk.replace(HARD_BREAK, '');
    const chunkEnd = from + chunk.length;
    const body = chunk.replace(TRAILING_SPACE, '');
    const bodyEnd = from + body.length;
    const bodyWidth = stringWidth(body);
    const gap = spacesWidth(text, end, spaceEnd);
    if (start !== -1 && used + gap + bodyWidth > width) close();
    if (start === -1) {
      // At the start of a line: a chunk wider than the line is cut between graphemes (one
      // holding a path kept whole runs past it).
      let at = from;
      const holdsPath = paths.some(([pathStart, pathEnd]) => pathStart < bodyEnd && pathEnd > from);
      if (bodyWidth > width && !holdsPath) at = placeOversized(text, from, bodyEnd, width, lines);
      start = at;
      used = stringWidth(text.slice(at, bodyEnd));
    } else used += gap + bodyWidth;
    end = bodyEnd;
    spaceEnd = chunkEnd;
    from = position;
    if (required) close();
  }
  if (start !== -1) lines.push([start, end]);
  return lines.length > 0 ? lines : [[0, 0]];
}

/** Cells taken by the spaces between two chunks (space and tab as string-width counts them, ideographic space two). */
function spacesWidth(text: string, from: number, to: number): number {
  let cells = 0;
  for (let i = from; i < to; i++) cells += text.charCodeAt(i) === 0x3000 ? 2 : text.charCodeAt(i) === 0x09 ? 0 : 1;
  return cells;
}

/** Full lines of graphemes from the oversized chunk [from, to); returns where its last, partial line starts. */
function placeOversized(text: string, from: number, to: number, width: number, lines: LineRange[]): number {
  let lineStart = from;
  let used = 0;
  let at = from;
  let cut = false;
  for (const { segment } of segmenter.segment(text.slice(from, to))) {
    const w = stringWidth(segment);
    if (used + w > width && at > lineStart) {
      lines.push([lineStart, lineStart + text.slice(lineStart, at).replace(TRAILING_SPACE, '').length]);
      lineStart = at;
      used = 0;
      cut = true;
    }
    at += segment.length;
    // A space where the chunk was cut ends the line above; it does not start the next.
    if (cut && used === 0 && /^\s+$/.test(segment)) lineStart = at;
    else used += w;
  }
  return lineStart;
}

/** The lines of `text` wrapped to `width` cells, as strings. */
export function wrapText(text: string, width: number, options: WrapOptions = {}): string[] {
  return wrapRanges(text, width, options).map(([start, end]) => text.slice(start, end));
}

/**
 * `text` wrapped to `width` cells after a `lead` (a name in its column, an indent): the first
 * line starts with the lead, the others with as many spaces, so the text reads as one column.
 * Where a piece of the text that may not be broken (a figure with its unit) is wider than the
 * column beside a long label (a narrow terminal), the text starts on the next line, two
 * spaces in, rather than have the figure cut in two.
 */
export function wrapHanging(lead: string, text: string, width: number, options: WrapOptions = {}): string[] {
  const leadWidth = stringWidth(lead);
  if (lead.trim() !== '' && widestPiece(text) > width - leadWidth) return underLabel(lead, width, (room) => wrapText(text, Math.max(10, room), options));
  const indent = ' '.repeat(leadWidth);
  return wrapText(text, Math.max(10, width - indent.length), options).map((line, i) => (i === 0 ? lead : indent) + line);
}

/** A label `lead` on a line of its own, then the lines `layout` makes for the `width` left two spaces further in. */
export function underLabel(lead: string, width: number, layout: (room: number) => readonly string[]): string[] {
  const indent = `${/^\s*/.exec(lead)![0]}  `;
  return [lead.trimEnd(), ...layout(width - indent.length).map((line) => indent + line)];
}

/** The widest run of `text` between two places a line may break, in cells. */
function widestPiece(text: string): number {
  let widest = 0;
  let from = 0;
  for (const { position } of breakOpportunities(text)) {
    widest = Math.max(widest, stringWidth(text.slice(from, position).trimEnd()));
    from = position;
  }
  return widest;
}

/** The width kb's printed listings wrap to: the terminal's (100 at most; 80 when piped), less its last column. */
export function listingWidth(columns: number | undefined): number {
  return Math.min(100, columns ?? 80) - 1;
}
