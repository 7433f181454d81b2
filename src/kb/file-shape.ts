// Files whose shape kb cannot read safely, caught before any parser sees them: reading them
// the usual way would take their frontmatter for body text, and writing an id would then put
// a second frontmatter block on top, ignoring the file's own id and dates.
import { locateFrontmatter } from './frontmatter.ts';
import type { Diagnostic, KbPath } from '../model/knowledge-base.ts';

/** Nothing is read from or written into a file with a shape problem; an error stops its cards, a warning only notes it. */
export function fileShapeProblem(file: KbPath, text: string): Diagnostic | null {
  if (text.trim() === '') return { severity: 'warning', file, message: 'empty file: no card until it has a question' };
  const firstBreak = text.search(/[\r\n]/);
  if (firstBreak !== -1 && text.charAt(firstBreak) === '\r' && text.charAt(firstBreak + 1) !== '\n') {
    return {
      severity: 'error',
      file,
      line: 1,
      message: 'line endings are lone CR (classic Mac OS): kb reads LF or CRLF files; convert it (e.g. mac2unix); skipped, nothing written',
    };
  }
  if (opensFrontmatter(text) && locateFrontmatter(text) === null) {
    return {
      severity: 'error',
      file,
      line: 1,
      message: 'frontmatter opened here is never closed (no later line starts with ---); skipped, nothing written: add the closing --- line',
    };
  }
  return null;
}

/** A first line of `---` (with an optional language), as gray-matter opens a block; `----` is a thematic break. */
function opensFrontmatter(text: string): boolean {
  const open = text.startsWith('\uFEFF') ? 1 : 0;
  return text.startsWith('---', open) && text.charAt(open + 3) !== '-';
}
