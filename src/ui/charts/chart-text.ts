// Text charts drawn with block characters, so they read the same with or without colour.

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const RISING = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/** Heatmap shades from none to most. */
export const SHADES = ['·', '░', '▒', '▓', '█'];

/** A horizontal bar `width` cells long at `max`, with eighth-cell precision. */
export function horizontalBar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((value / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

/** Columns of `height` rows, one per value, `columnWidth` cells wide (a gap of one after each, but for a single cell); the top row first. */
export function columnLines(values: readonly number[], height: number, columnWidth: number): string[] {
  const max = Math.max(0, ...values);
  const lines: string[] = [];
  for (let row = height - 1; row >= 0; row--) {
    let line = '';
    for (const value of values) {
      const eighths = max === 0 ? 0 : Math.round((value / max) * height * 8);
      const filled = Math.min(8, Math.max(0, eighths - row * 8));
      // One cell a column (a narrow terminal) leaves no room for a gap: the bar fills it.
      line += columnWidth === 1 ? RISING[filled] : RISING[filled].repeat(columnWidth - 1) + ' ';
    }
    lines.push(line);
  }
  return lines;
}

/** The shade for a count: 0 is none, the rest split evenly up to the maximum. */
export function shade(count: number, max: number): string {
  if (count <= 0 || max <= 0) return SHADES[0];
  return SHADES[Math.min(SHADES.length - 1, Math.ceil((count / max) * (SHADES.length - 1)))];
}
