// kb quiz's source line, "deck · tags · path:line", fitted to one row. The path is what finds
// the card again, so it goes last: first the tags are shortened, then dropped, then the deck;
// the path is cut (from its start, keeping the file name and line) only where it alone is
// wider than the row. (Ink's truncate-middle cut "arithmetic-i…code/arithmetic-intensity-
// roofline.md:1" out of the tags and the path's start together.) Widths in terminal cells.
import stringWidth from 'string-width';
import { truncateStartToWidth, truncateToWidth } from '../text/truncate.ts';

const SEPARATOR = ' · ';

export function quizSourceLine(deck: string, tags: readonly string[], location: string, width: number): string {
  // A tag naming the deck adds nothing beside it (the bundled decks are tagged with their own name).
  const tagText = tags.filter((tag) => tag !== deck).join(', ');
  const untagged = `${deck}${SEPARATOR}${location}`;
  const whole = tagText ? `${deck}${SEPARATOR}${tagText}${SEPARATOR}${location}` : untagged;
  if (stringWidth(whole) <= width) return whole;
  if (tagText) {
    const room = width - stringWidth(untagged) - stringWidth(SEPARATOR);
    // At least a character of the tags beside the "…"; a lone "…" says nothing.
    const tagsCut = room >= 2 ? truncateToWidth(tagText, room) : '…';
    if (tagsCut !== '…') return `${deck}${SEPARATOR}${tagsCut}${SEPARATOR}${location}`;
  }
  if (stringWidth(untagged) <= width) return untagged;
  const deckRoom = width - stringWidth(SEPARATOR) - stringWidth(location);
  const deckCut = deckRoom >= 2 ? truncateToWidth(deck, deckRoom) : '…';
  if (deckCut !== '…') return `${deckCut}${SEPARATOR}${location}`;
  return truncateStartToWidth(location, width);
}
