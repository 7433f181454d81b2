// What kb prints, fitted to the terminal: its width (or $COLUMNS when piped), and a report's
// lines wrapped within it (ui/text/fit-lines.ts, loaded when a report is printed).
import { terminalColumns } from '../ui/text/terminal-columns.ts';

export { terminalColumns };

/**
 * `text` with its long lines wrapped short of stdout's last column (80 columns when piped): a
 * report's lines use the whole width. A file path or URL is never broken, on a terminal or
 * through a pipe: one wider than the line stands whole on a line of its own and runs past it.
 * A terminal's own wrap keeps it one line to copy; a pipe's reader gets it whole (`kb add … |
 * cat` printed "…-bound-on-a-" and "gpu.md" on two lines, which copied as two).
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
