// What kb prints, fitted to the terminal: its width (or $COLUMNS when piped), and a report's
// lines wrapped within it (ui/text/fit-lines.ts, loaded when a report is printed).

/**
 * The width of the terminal `stream` goes to; when piped, $COLUMNS if set (as `COLUMNS=200 kb
 * lab history | less` asks), else undefined (each output then takes its own default).
 */
export function terminalColumns(stream: NodeJS.WriteStream = process.stdout): number | undefined {
  if (stream.isTTY && stream.columns) return stream.columns;
  const fromEnv = Number(process.env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined;
}

/** `text` with its long lines wrapped short of stdout's last column (80 columns when piped): a report's lines use the whole width. */
export async function fittedToTerminal(text: string): Promise<string> {
  const { fitLines } = await import('../ui/text/fit-lines.ts');
  return fitLines(text, (terminalColumns() ?? 80) - 1);
}
