// How wide kb's output may run: the terminal's width, or $COLUMNS where the output is piped.

/**
 * The width of the terminal `stream` goes to; when piped, $COLUMNS if set (as `COLUMNS=200 kb
 * lab history | less` asks), else undefined (each output then takes its own default).
 */
export function terminalColumns(stream: NodeJS.WriteStream = process.stdout): number | undefined {
  if (stream.isTTY && stream.columns) return stream.columns;
  const fromEnv = Number(process.env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined;
}
