// How kb opens a file in the user's editor (kb review's `e` key, kb add --edit): $VISUAL,
// else $EDITOR, else vi; the setting split on spaces (so "code --wait" works), then +LINE
// and the file, which vi, vim, nano, emacs and micro all understand.
import { readFileSync } from 'node:fs';

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
  let lines: string[];
  try {
    lines = readFileSync(file, 'utf8').split(/\r?\n/);
  } catch {
    return 1;
  }
  let bodyStart = 0;
  if (lines[0]?.replace(/^\uFEFF/, '') === '---') {
    const end = lines.findIndex((line, i) => i > 0 && (line === '---' || line === '...'));
    if (end > 0) bodyStart = end + 1;
  }
  const heading = lines.findIndex((line, i) => i >= bodyStart && /^# /.test(line));
  return (heading >= 0 ? heading : Math.min(bodyStart, lines.length - 1)) + 1;
}
