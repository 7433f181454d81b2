// How kb opens a file in the user's editor (kb review's `e` key, kb add --edit): $VISUAL,
// else $EDITOR, else vi; the setting split on spaces (so "code --wait" works), then +LINE
// and the file, which vi, vim, nano, emacs and micro all understand.
import { readFileSync } from 'node:fs';
import { parseFrontmatter } from './frontmatter.ts';

export function defaultEditor(): string {
  return process.env.VISUAL || process.env.EDITOR || 'vi';
}

export function editorInvocation(editor: string, line: number, file: string): { command: string; args: string[] } {
  const [command, ...flags] = editor.split(/\s+/).filter(Boolean);
  return { command, args: [...flags, `+${line}`, file] };
}

/**
 * The line a note opens at: its question, the first `# ` heading after the frontmatter (else
 * the first line after it). A note is one card from line 1, and `e` opened it on the
 * frontmatter's `---` (found as a user).
 */
export function noteQuestionLine(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 1;
  }
  // The frontmatter as kb reads it everywhere else; its body's first line, 1-based.
  const bodyLine = parseFrontmatter(file, text).bodyLine;
  const lines = text.split(/\r?\n/);
  const heading = lines.findIndex((line, i) => i >= bodyLine - 1 && /^# /.test(line));
  return heading >= 0 ? heading + 1 : Math.min(bodyLine, lines.length);
}
