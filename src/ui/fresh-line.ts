// After a program kb handed the terminal to (the editor of kb review's e) ends, the cursor of
// the normal screen may stand mid-line: a Ctrl-C there made the terminal echo `^C`, and an
// editor may print a line with no newline. The alternate screen saves that cursor when kb takes
// it back and puts it there again when kb leaves it, so kb's exit line was printed on after it
// (`^CNo cards reviewed; ...`).

/**
 * Puts the cursor at the start of a clean line without knowing its column (a terminal tells
 * it only through an answer on stdin, which Ink reads): a full line of spaces ends at the last
 * column of the cursor's own line when it stood at column 0, the terminal holding the wrap
 * until more is written, and on the next line otherwise; a carriage return then goes to that
 * line's start. So what was written stays (`^C` on its line), and a cursor at column 0 stays
 * where it is (shells print their prompt the same way after a command that left no newline).
 */
export function toFreshLine(stream: NodeJS.WriteStream): void {
  if (!stream.isTTY || !stream.columns) return;
  stream.write(`${' '.repeat(stream.columns)}\r`);
}
