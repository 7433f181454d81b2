// The width kb prints to: the terminal's, else $COLUMNS when piped; a $COLUMNS that is not a
// positive whole number is ignored (each output keeps its own default), never an error.
import { afterEach, describe, expect, it } from 'vitest';
import { terminalColumns } from '../../src/cli/terminal-output.ts';

const saved = process.env.COLUMNS;
afterEach(() => {
  if (saved === undefined) delete process.env.COLUMNS;
  else process.env.COLUMNS = saved;
});

const pipe = { isTTY: false, columns: undefined } as unknown as NodeJS.WriteStream;
const terminal = { isTTY: true, columns: 120 } as unknown as NodeJS.WriteStream;

describe('terminalColumns', () => {
  it('takes the terminal, then $COLUMNS, and ignores a $COLUMNS that is not a width', () => {
    process.env.COLUMNS = '60';
    expect(terminalColumns(terminal)).toBe(120);
    expect(terminalColumns(pipe)).toBe(60);
    for (const bad of ['', 'abc', '0', '-5', '7.5']) {
      process.env.COLUMNS = bad;
      expect(terminalColumns(pipe), JSON.stringify(bad)).toBeUndefined();
    }
    delete process.env.COLUMNS;
    expect(terminalColumns(pipe)).toBeUndefined();
  });
});
