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
  const conflict = mergeConflictLines(text);
  if (conflict) {
    // Left by a git merge or rebase (kb sync stops on one): the YAML and Markdown errors it would
    // otherwise raise, one per marker, would not say what happened.
    return {
      severity: 'error',
      file,
      line: conflict.start,
      message: `unresolved git merge conflict (lines ${conflict.start}-${conflict.end}): keep one side, delete the <<<<<<< ======= >>>>>>> lines, then git add it; skipped, nothing written`,
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

/** The first block of git conflict markers (<<<<<<< ... ======= ... >>>>>>>), as 1-based lines; null without one. */
function mergeConflictLines(text: string): { start: number; end: number } | null {
  if (!text.includes('<<<<<<<')) return null;
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((line) => /^<{7}(?: |$)/.test(line));
  if (start === -1) return null;
  const middle = lines.findIndex((line, i) => i > start && /^={7}$/.test(line));
  const end = lines.findIndex((line, i) => i > middle && /^>{7}(?: |$)/.test(line));
  return middle === -1 || end === -1 ? null : { start: start + 1, end: end + 1 };
}
