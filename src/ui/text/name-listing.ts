// kb lab list and kb lab devices: a column of names, each with its lines of text beside and
// under it, wrapped to the terminal under the text's column, then a line of hints.
import { listingWidth, wrapHanging } from './line-wrap.ts';
import { packParts } from './pack-parts.ts';

export interface ListingEntry {
  name: string;
  /** The first goes beside the name, the others under it, each wrapped in the text's column. */
  lines: string[];
}

/** The listing within `columns` (the terminal's; 80 when unknown), ending with `hints` packed three spaces apart. */
export function nameListing(entries: readonly ListingEntry[], hints: readonly string[], columns: number | undefined): string {
  const width = listingWidth(columns);
  const nameWidth = Math.max(...entries.map((entry) => entry.name.length));
  const out: string[] = [];
  for (const entry of entries) {
    const name = `${entry.name.padEnd(nameWidth)}  `;
    // Printed: a path (a device profile's file) is kept whole, however wide (as fittedToTerminal keeps it).
    entry.lines.forEach((line, i) => out.push(...wrapHanging(i === 0 ? name : ' '.repeat(name.length), line, width, { wholePaths: true })));
  }
  out.push('', ...packParts(hints, '   ', width, { wholePaths: true }));
  return `${out.join('\n')}\n`;
}
