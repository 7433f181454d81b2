// Cuts a single line of text to a width in terminal cells (Chinese characters take two).
import stringWidth from 'string-width';

const segmenter = new Intl.Segmenter();

/** Printable ASCII: one cell a character. */
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;

/** Graphemes' widths as measured once: a text holds few distinct ones (a few thousand Chinese characters at most). */
const graphemeWidths = new Map<string, number>();

/**
 * The cells of one grapheme: a printable ASCII character is one, any other is measured once.
 * string-width's work on every grapheme of every cut question made most of kb cards on 5,000
 * cards (~0.5 of ~1 s).
 */
function graphemeWidth(segment: string): number {
  if (segment.length === 1 && segment >= ' ' && segment <= '~') return 1;
  let width = graphemeWidths.get(segment);
  if (width === undefined) {
    width = stringWidth(segment);
    if (graphemeWidths.size < 65_536) graphemeWidths.set(segment, width);
  }
  return width;
}

export function truncateToWidth(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (PRINTABLE_ASCII.test(line)) return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
  if (stringWidth(line) <= width) return line;
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(line)) {
    const w = graphemeWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** Cuts a single line from its start to a width in terminal cells, its end kept: "…ecode/roofline.md:1". */
export function truncateStartToWidth(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  const segments = Array.from(segmenter.segment(text), ({ segment }) => segment);
  let out = '';
  let used = 0;
  for (let i = segments.length - 1; i >= 0; i--) {
    const w = stringWidth(segments[i]);
    if (used + w > width - 1) break;
    out = segments[i] + out;
    used += w;
  }
  return `…${out}`;
}

/** Pads a line with spaces to a width in terminal cells. */
export function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}
