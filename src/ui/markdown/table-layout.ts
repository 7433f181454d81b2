// Lays out a Markdown table as lines of text that fit a width. Column widths are measured
// in terminal cells with string-width, so Chinese text (two cells a character) lines up.
import stringWidth from 'string-width';
import { wrapText } from '../text/line-wrap.ts';

export type Align = 'left' | 'right' | 'center' | null;

/** Borders take 1 cell each side of every column plus 1 padding cell each side. */
function frameWidth(columns: number): number {
  return columns * 3 + 1;
}

/** Column widths that fit `width`: the widest columns give up cells first, none below `minimum`. */
export function columnWidths(rows: readonly (readonly string[])[], width: number, minimum = 3): number[] {
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(1, ...rows.map((row) => Math.max(0, ...(row[c] ?? '').split('\n').map((line) => stringWidth(line))))),
  );
  const available = Math.max(columns * minimum, width - frameWidth(columns));
  let total = widths.reduce((sum, w) => sum + w, 0);
  while (total > available) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= minimum) break;
    widths[widest] -= 1;
    total -= 1;
  }
  return widths;
}

function pad(text: string, width: number, align: Align): string {
  const gap = Math.max(0, width - stringWidth(text));
  if (align === 'right') return ' '.repeat(gap) + text;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + text + ' '.repeat(Math.ceil(gap / 2));
  return text + ' '.repeat(gap);
}

function rule(widths: readonly number[], left: string, middle: string, right: string): string {
  return left + widths.map((w) => '─'.repeat(w + 2)).join(middle) + right;
}

export interface TableLines {
  top: string;
  header: string[];
  separator: string;
  body: string[][];
  bottom: string;
}

/** The table's text lines: the header row (maybe several lines), a rule, each body row. */
export function layoutTable(rows: readonly (readonly string[])[], align: readonly Align[], width: number): TableLines {
  const widths = columnWidths(rows, width);
  const renderRow = (row: readonly string[]): string[] => {
    const cells = widths.map((w, c) => wrapText(row[c] ?? '', w));
    const height = Math.max(1, ...cells.map((lines) => lines.length));
    return Array.from({ length: height }, (_, line) =>
      '│' + cells.map((lines, c) => ` ${pad(lines[line] ?? '', widths[c], align[c] ?? null)} `).join('│') + '│',
    );
  };
  const [head = [], ...body] = rows;
  return {
    top: rule(widths, '┌', '┬', '┐'),
    header: renderRow(head),
    separator: rule(widths, '├', '┼', '┤'),
    body: body.map(renderRow),
    bottom: rule(widths, '└', '┴', '┘'),
  };
}
