// kb lab list and kb lab devices: a column of names, each with its lines of text beside and
// under it, wrapped to the terminal under the text's column, then a line of hints.
import { listingWidth, wrapHanging } from './line-wrap.ts';
import { packParts } from './pack-parts.ts';

/** A line under the name led by a label ("fit:"), its text wrapped under the text, clear of the labels. */
export interface LabelledLine {
  label: string;
  text: string;
}

export interface ListingEntry {
  name: string;
  /** The first goes beside the name, the others under it, each wrapped in the text's column. */
  lines: Array<string | LabelledLine>;
}

/** The listing within `columns` (the terminal's; 80 when unknown), ending with `hints` packed three spaces apart. */
export function nameListing(entries: readonly ListingEntry[], hints: readonly string[], columns: number | undefined): string {
  const width = listingWidth(columns);
  const nameWidth = Math.max(...entries.map((entry) => entry.name.length));
  // One column for every labelled line in the listing, so their texts line up entry to entry.
  const labelWidth = Math.max(0, ...entries.flatMap((entry) => entry.lines.map((line) => (typeof line === 'string' ? 0 : line.label.length + 2))));
  const out: string[] = [];
  for (const entry of entries) {
    const name = `${entry.name.padEnd(nameWidth)}  `;
    const under = ' '.repeat(name.length);
    // Printed: a path (a device profile's file) is kept whole, however wide (as fittedToTerminal keeps it).
    entry.lines.forEach((line, i) => {
      const lead = i === 0 ? name : under;
      if (typeof line === 'string') out.push(...wrapHanging(lead, line, width, { wholePaths: true }));
      else out.push(...wrapHanging(`${lead}${`${line.label}:`.padEnd(labelWidth)}`, line.text, width, { wholePaths: true }));
    });
  }
  out.push('', ...packParts(hints, '   ', width, { wholePaths: true }));
  return `${out.join('\n')}\n`;
}
