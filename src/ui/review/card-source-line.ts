// kb review's source line, "deck · state · path:line  lab: name", fitted to one row. The path
// finds the card again and the lab is what `l` runs, so the deck is shortened first, then
// dropped, then the lab; the path is cut from its start only where it alone is too wide. (Ink's
// truncate-middle cut the middle out, the separator and the path's start with it.) Cells, not
// characters: Chinese decks are two cells a character.
import stringWidth from 'string-width';
import { truncateStartToWidth, truncateToWidth } from '../text/truncate.ts';

const SEPARATOR = ' · ';

export interface SourceLine {
  text: string;
  /** "  lab: name", drawn in its own colour; empty when there is none or no room for it. */
  lab: string;
}

export function cardSourceLine(deck: string, state: string, location: string, lab: string | null, width: number): SourceLine {
  const labText = lab ? `  lab: ${lab}` : '';
  const tail = `${SEPARATOR}${state}${SEPARATOR}${location}`;
  for (const labPart of labText ? [labText, ''] : ['']) {
    const room = width - stringWidth(tail) - stringWidth(labPart);
    if (stringWidth(deck) <= room) return { text: `${deck}${tail}`, lab: labPart };
    // At least a character of the deck beside the "…"; a lone "…" says nothing. Counted on the
    // cut deck, not the room: two cells hold no Chinese character beside the "…" (it drew
    // "… · new · notes/调度/…" at 74 columns: found as a user).
    const cut = room >= 2 ? truncateToWidth(deck, room) : '';
    if (cut.length > 1) return { text: `${cut}${tail}`, lab: labPart };
    const bare = `${state}${SEPARATOR}${location}`;
    if (stringWidth(bare) + stringWidth(labPart) <= width) return { text: bare, lab: labPart };
  }
  return { text: truncateStartToWidth(location, width), lab: '' };
}
