// What kb prints, fitted to the terminal: its width (or $COLUMNS when piped), and a report's
// lines wrapped within it (ui/text/fit-lines.ts, loaded when a report is printed).
import { terminalColumns } from '../ui/text/terminal-columns.ts';

export { terminalColumns };

/**
 * `text` with its long lines wrapped short of stdout's last column (80 columns when piped): a
 * report's lines use the whole width. A file path is never broken: one wider than the line runs
 * past it, where a terminal's own wrap keeps it one line to copy, and a script reading a pipe
 * finds it whole (`kb add … | cat` printed "…-bound-on-a-" and "gpu.md" on two lines).
 */
export async function fittedToTerminal(text: string): Promise<string> {
  const { fitLines } = await import('../ui/text/fit-lines.ts');
  return fitLines(text, (terminalColumns() ?? 80) - 1, { wholePaths: true });
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
