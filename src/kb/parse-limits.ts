// Limits checked in one linear pass before YAML or Markdown parsing sees a file. Container
// parsing costs about (lines x open containers): a crafted 1 MB note of a list nested 1,000
// deep took remark 26 s and 627 MB; no hand-written note comes near these limits, and a
// file over one is skipped with a warning naming it and the line, never half-read.
import { locateFrontmatter } from './frontmatter.ts';
import type { Diagnostic, KbPath } from '../model/knowledge-base.ts';

/** Deepest nesting of lists and block quotes kb reads (markdown-it's default cap is 100; outlines rarely pass 10). */
export const MAX_NESTING = 50;
/** Largest frontmatter kb reads: about 2,000 lines of keys; a real note's has a few dozen. */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;

export function parseLimitProblem(file: KbPath, text: string): Diagnostic | null {
  const block = locateFrontmatter(text);
  if (block && block.yamlEnd - block.yamlStart > MAX_FRONTMATTER_BYTES) {
    const kb = Math.round((block.yamlEnd - block.yamlStart) / 1024);
    return { severity: 'warning', file, line: 1, message: `frontmatter is ${kb} KB, over kb's ${MAX_FRONTMATTER_BYTES / 1024} KB limit; skipped` };
  }
  const line = firstLineNestedOver(text, MAX_NESTING);
  if (line !== null) {
    return { severity: 'warning', file, line, message: `lists or quotes nested more than ${MAX_NESTING} deep, over kb's limit; skipped` };
  }
  return null;
}

/**
 * The first line that may open a list item or a quote deeper than `limit`, or null: bounds
 * the container depth of each line that opens one. A line can only open a container inside the ones it
 * continues, and continuing a list item takes at least two columns of indentation (its
 * marker and a space) and a quote one `>`; so markers + indentation / 2 bounds its depth.
 * Indentation alone (code, a lazy paragraph line) opens nothing and is not counted.
 */
export function firstLineNestedOver(text: string, limit: number): number | null {
  let line = 1;
  let i = 0;
  const n = text.length;
  while (i < n) {
    let column = 0;
    let blank = 0;
    let markers = 0;
    for (;;) {
      const code = text.charCodeAt(i);
      if (code === 32 || code === 9) {
        const width = code === 9 ? 4 - (column % 4) : 1;
        column += width;
        blank += width;
        i++;
      } else if (code === 62 /* > */) {
        markers++;
        column++;
        i++;
      } else {
        const width = listMarkerWidth(text, i);
        if (width === 0) break;
        markers++;
        column += width;
        i += width;
      }
    }
    if (markers > 0) {
      if (markers + Math.floor(blank / 2) > limit) return line;
    }
    // On to the next line (CRLF, LF or a lone CR ends one).
    while (i < n) {
      const code = text.charCodeAt(i++);
      if (code === 10) break;
      if (code === 13) {
        if (text.charCodeAt(i) === 10) i++;
        break;
      }
    }
    line++;
  }
  return null;
}

/** Width of a list marker at `i` (`-`, `+`, `*`, or up to 9 digits and `.` or `)`) followed by a space, tab or line end; 0 if none. */
function listMarkerWidth(text: string, i: number): number {
  const code = text.charCodeAt(i);
  let end = i;
  if (code === 45 || code === 43 || code === 42) end = i + 1;
  else {
    while (end - i < 9 && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
    if (end === i || (text.charCodeAt(end) !== 46 && text.charCodeAt(end) !== 41)) return 0;
    end++;
  }
  const after = text.charCodeAt(end);
  return after === 32 || after === 9 || after === 10 || after === 13 || Number.isNaN(after) ? end - i : 0;
}
