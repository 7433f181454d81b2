// The plain-text listing of kb due: a summary line, then one line per card.
import stringWidth from 'string-width';
import { intervalLabel } from '../../srs/interval-label.ts';
import { plainQuestion } from '../markdown/plain-question.ts';
import { padToWidth, truncateToWidth } from './truncate.ts';

export interface DueEntry {
  id: string;
  queue: 'learning' | 'review' | 'new' | 'later';
  /** ISO time; null for a new card (it has no due date: it is in today's queue now). */
  due: string | null;
  deck: string;
  front: string;
  lab: string | null;
}

export interface DueCounts {
  learning: number;
  review: number;
  new: number;
  later: number;
}

/** Cells a question keeps before a lab tag beside it is shortened. */
const QUESTION_ROOM = 20;

/**
 * `cardsInKb`: the knowledge base's cards, filters aside. None at all is not "come back
 * tomorrow": it says how to add one. kb due scans before it lists, so "run kb scan" (as it
 * said) sent the user to a command that changes nothing (found as a user on a fresh kb init).
 */
export function formatDue(counts: DueCounts, entries: readonly DueEntry[], now: number, columns: number, cardsInKb?: number): string {
  const total = counts.learning + counts.review + counts.new;
  const lines = [
    total === 0 && counts.later === 0
      ? cardsInKb === 0
        ? 'No cards yet. Add one: kb add "Question?" --answer "Answer."'
        : 'Nothing due. Come back tomorrow (or add cards: kb add).'
      : `Due now: ${counts.learning} learning, ${counts.review} review, ${counts.new} new` +
        (counts.later > 0 ? `; ${counts.later} learning later today` : ''),
  ];
  const idWidth = entries.reduce((widest, entry) => Math.max(widest, stringWidth(entry.id)), 2);
  const deckWidth = Math.min(16, entries.reduce((widest, entry) => Math.max(widest, stringWidth(entry.deck)), 4));
  const whenOf = (entry: DueEntry) => {
    if (entry.due === null) return 'now';
    const due = Date.parse(entry.due);
    // A review is due for its whole study day (as in Anki): "in 19.7h" under "Due now" read as not yet.
    if (entry.queue === 'review' && due > now) return 'today';
    return due <= now ? 'now' : `in ${intervalLabel(due - now)}`;
  };
  // Columns as wide as their widest value; a narrow terminal (a phone's) drops the deck before
  // the question gets less than its room.
  const queueWidth = entries.reduce((widest, entry) => Math.max(widest, entry.queue.length), 5);
  const whenWidth = entries.reduce((widest, entry) => Math.max(widest, whenOf(entry).length), 3);
  const withDeck = columns - (idWidth + 2 + queueWidth + 2 + whenWidth + 2 + deckWidth + 2) - 1 >= QUESTION_ROOM;
  for (const entry of entries) {
    const deck = withDeck ? `${padToWidth(truncateToWidth(entry.deck, deckWidth), deckWidth)}  ` : '';
    const head = `${padToWidth(entry.id, idWidth)}  ${padToWidth(entry.queue, queueWidth)}  ${padToWidth(whenOf(entry), whenWidth)}  ${deck}`;
    // Widths in terminal cells: a Chinese deck name takes two per character. The question keeps
    // QUESTION_ROOM cells (or all it needs) where it can: a long lab name is said shorter first.
    const room = columns - stringWidth(head) - 1;
    const front = plainQuestion(entry.front);
    const question = Math.min(QUESTION_ROOM, stringWidth(front));
    const lab = !entry.lab ? '' : [` [lab: ${entry.lab}]`, ' [lab]'].find((tag) => room - stringWidth(tag) >= question) ?? '';
    lines.push(head + truncateToWidth(front, Math.max(10, room - stringWidth(lab))) + lab);
  }
  return `${lines.join('\n')}\n`;
}
