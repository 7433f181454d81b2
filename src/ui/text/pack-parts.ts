// A line made of parts ("ttft-breakdown · reproduced 2/2 · 3m ago · ratio = 0.937") laid out
// on as many rows as the width needs, breaking only between parts, so a figure never ends up
// apart from its name; a part wider than a whole row is wrapped on its own.
import stringWidth from 'string-width';
import { wrapText, type WrapOptions } from './line-wrap.ts';

/**
 * Rows of `parts` joined by `separator` within `width` cells. At a break the separator is
 * dropped: a row ending in " ·" read as a part gone missing.
 */
export function packParts(parts: readonly string[], separator: string, width: number, options: WrapOptions = {}): string[] {
  const rows: string[] = [];
  let row = '';
  for (const part of parts) {
    const joined = row === '' ? part : row + separator + part;
    if (stringWidth(joined) <= width) {
      row = joined;
      continue;
    }
    if (row !== '') rows.push(row);
    const pieces = wrapText(part, width, options);
    rows.push(...pieces.slice(0, -1));
    row = pieces.at(-1) ?? '';
  }
  if (row !== '') rows.push(row);
  return rows;
}
