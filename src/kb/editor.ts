// How kb opens a file in the user's editor (kb review's `e` key, kb add --edit): $VISUAL,
// else $EDITOR, else vi; the setting split on spaces (so "code --wait" works), then the file
// with its line in the form that editor takes (editorInvocation).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseFrontmatter } from './frontmatter.ts';

export function defaultEditor(): string {
  return process.env.VISUAL || process.env.EDITOR || 'vi';
}

/** Editors that take `+LINE FILE`, by the command's base name. */
const PLUS_LINE = new Set([
  'vi', 'vim', 'nvim', 'gvim', 'mvim', 'view', 'vim.basic', 'vim.tiny', 'vim.gtk3', 'elvis', 'nvi',
  'nano', 'rnano', 'pico', 'emacs', 'emacsclient', 'mg', 'jove', 'micro', 'kak', 'joe', 'ne', 'mcedit',
]);
/** Editors that take `--goto FILE:LINE` (VS Code and its builds). */
const GOTO_LINE = new Set(['code', 'code-insiders', 'codium', 'vscodium', 'code-oss', 'cursor']);
/** Editors that take `FILE:LINE`. */
const COLON_LINE = new Set(['subl', 'sublime_text', 'hx', 'helix', 'zed']);

/**
 * The command and arguments that open `file` at `line` in `editor`. `+LINE` goes only to an
 * editor known to take it: any other (a script, gedit, `code --wait`) took `+14` for a file
 * to open, and VS Code opened an empty "+14" beside the note. An editor kb does not know
 * gets the file alone, at its first line.
 */
export function editorInvocation(editor: string, line: number, file: string): { command: string; args: string[] } {
  const [command, ...flags] = editor.split(/\s+/).filter(Boolean);
  const name = basename(command);
  if (PLUS_LINE.has(name)) return { command, args: [...flags, `+${line}`, file] };
  if (GOTO_LINE.has(name)) return { command, args: [...flags, '--goto', `${file}:${line}`] };
  if (COLON_LINE.has(name)) return { command, args: [...flags, `${file}:${line}`] };
  return { command, args: [...flags, file] };
}

/** How an editor run ended, as spawnSync reports it. */
export interface EditorExit {
  /** Set when the editor could not be started at all (ENOENT: no such command). */
  error?: Error;
  status: number | null;
  signal: NodeJS.Signals | null;
}

/** Exit status a shell (and a shell script as the editor) gives a process ended by Ctrl-C. */
const INTERRUPTED_STATUS = 130;

/**
 * Why an editor run failed, in words (null: it exited 0), for kb add --edit and kb review's
 * `e`: it could not be started, was interrupted (Ctrl-C), or exited with a status.
 */
export function editorFailure(command: string, exit: EditorExit): string | null {
  if (exit.error) return `the editor ${command} could not be started (${(exit.error as NodeJS.ErrnoException).code ?? exit.error.message})`;
  if (exit.signal === 'SIGINT' || exit.status === INTERRUPTED_STATUS) return `the editor ${command} was interrupted (Ctrl-C)`;
  if (exit.status !== 0) return `the editor ${command} exited with ${exit.status ?? exit.signal}`;
  return null;
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
