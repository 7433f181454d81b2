// What kb prints, fitted to the terminal: its width (or $COLUMNS when piped), and a report's
// lines wrapped within it (ui/text/fit-lines.ts, loaded when a report is printed).
import { terminalColumns } from '../ui/text/terminal-columns.ts';

export { terminalColumns };

/**
 * `text` with its long lines wrapped short of stdout's last column (80 columns when piped): a
 * report's lines use the whole width. On a terminal a file path is never broken: one wider than
 * the terminal runs past its edge, and the terminal's own wrap keeps it one line to copy.
 */
export async function fittedToTerminal(text: string): Promise<string> {
  const { fitLines } = await import('../ui/text/fit-lines.ts');
  return fitLines(text, (terminalColumns() ?? 80) - 1, { wholePaths: process.stdout.isTTY === true });
}

/**
 * A message for stderr: on a terminal, wrapped short of its last column under its "kb: " (a
 * terminal would break a long line mid-word); piped, as it is, one line a script can match.
 */
export async function fittedToStderr(text: string): Promise<string> {
  if (!process.stderr.isTTY || !process.stderr.columns) return text;
  const { fitLines } = await import('../ui/text/fit-lines.ts');
  return fitLines(text, process.stderr.columns - 1, { wholePaths: true });
}
