// Cuts a single line of text to a width in terminal cells (Chinese characters take two).
import stringWidth from 'string-width';

const segmenter = new Intl.Segmenter();

export function truncateToWidth(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (stringWidth(line) <= width) return line;
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(line)) {
    const w = stringWidth(segment);
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
