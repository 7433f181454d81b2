// The plain-text listing of kb cards: one line per card, the columns of Anki's browser.
import stringWidth from 'string-width';
import { plainQuestion } from '../markdown/plain-question.ts';
import { padToWidth, truncateToWidth } from './truncate.ts';
import { reviewDayLabel } from '../../srs/study-day.ts';

export interface CardEntry {
  id: string;
  question: string;
  deck: string;
  state: string;
  /** ISO time; null for a new card, which has no due date. */
  due: string | null;
  /** null for a new card: no memory state yet. */
  stability: number | null;
  difficulty: number | null;
  reps: number;
  lapses: number;
  suspended: boolean;
  buried: boolean;
  leech: boolean;
}

/** The state with the flags that keep a card out of review: "review suspended leech". */
export function stateLabel(entry: CardEntry): string {
  return [entry.state, entry.suspended ? 'suspended' : '', entry.buried ? 'buried' : '', entry.leech ? 'leech' : ''].filter(Boolean).join(' ');
}

/**
 * A card's due time as kb cards and kb due list it (ISO), or null for a new card that is
 * available now: it has no due date, as in Anki (its row's is when this clone first scanned
 * it, which made two clones' listings differ). One its note's next_review holds back keeps that date.
 */
export function listedDue(state: number, due: number, now: number): string | null {
  return state === 0 && due <= now ? null : new Date(due).toISOString();
}

/**
 * The study day a card is due ("2026-03-10"), "now" when it is due already, "-" for a new card.
 * The study day, as the note's next_review writes it and kb due counts it, not the calendar date:
 * a card rated at 03:40 for a day later is due at 03:40, before a 04:00 day start, so in the
 * study day before that date (found following the README: kb cards said 2026-11-28 beside a
 * note's next_review: 2026-11-27, and kb due listed the card as due on the 27th).
 */
function dueLabel(due: string | null, now: number, dayStartsAt: string): string {
  if (due === null) return '-';
  const ms = Date.parse(due);
  if (ms <= now) return 'now';
  return reviewDayLabel(ms, dayStartsAt);
}

/** Columns a narrow terminal drops first, so the question keeps room: `kb cards --json` has them all. */
const DROPPED_FIRST = ['lapses', 'diff', 'stab'];
/** Cells the question should keep at least. */
const QUESTION_CELLS = 24;

/** `dayStartsAt`: the knowledge base's (kb.json), so a due date is the study day it falls in. */
export function formatCardTable(entries: readonly CardEntry[], now: number, columns: number, dayStartsAt = '00:00'): string {
  if (entries.length === 0) return 'No cards match.\n';
  const all = entries.map((entry) => ({
    id: entry.id,
    state: stateLabel(entry),
    due: dueLabel(entry.due, now, dayStartsAt),
    stab: entry.stability === null ? '-' : entry.stability.toFixed(1),
    diff: entry.difficulty === null ? '-' : entry.difficulty.toFixed(1),
    reps: String(entry.reps),
    lapses: String(entry.lapses),
    deck: entry.deck,
  }));
  const questions = entries.map((entry) => plainQuestion(entry.question));
  // The question keeps QUESTION_CELLS, or less when every question is shorter: the deck then has
  // the room ("metri…" beside "What is ITL?" with twelve cells unused, found as a user).
  const questionNeed = Math.min(QUESTION_CELLS, questions.reduce((widest, question) => Math.max(widest, stringWidth(question)), 'question'.length));
  type Column = keyof (typeof all)[number];
  const order: Column[] = ['id', 'state', 'due', 'stab', 'diff', 'reps', 'lapses', 'deck'];
  // Widths in terminal cells (a Chinese deck name takes two per character), measured once.
  // (A reduce, not Math.max(...rows): a spread of 150,000 cards overflows the stack.)
  const natural = new Map(order.map((column) => [column, Math.min(40, all.reduce((widest, row) => Math.max(widest, stringWidth(row[column])), column.length))]));
  let shown = order;
  const headWidth = () => shown.reduce((sum, column) => sum + natural.get(column)! + 2, 0);
  // A long deck name (an Obsidian folder path) is shown whole where the question keeps 60 cells
  // beside it, else cut to 16 as on a narrow terminal (it was cut to 16 at 200 columns too).
  const deckRoom = columns - (headWidth() - natural.get('deck')! - 2) - 60 - 3;
  natural.set('deck', Math.min(natural.get('deck')!, Math.max(16, deckRoom)));
  for (const column of DROPPED_FIRST) if (columns - headWidth() - 1 < questionNeed) shown = shown.filter((other) => other !== column);
  // Then the deck column gives way (to its title's width at least).
  const widths = new Map(natural);
  widths.set('deck', Math.max(4, natural.get('deck')! - Math.max(0, headWidth() + questionNeed + 1 - columns)));
  // Every cell is cut and padded to its column's width, so every line's head has the same width.
  const headCells = shown.reduce((sum, column) => sum + widths.get(column)! + 2, -2);
  const questionCells = Math.max(10, columns - headCells - 3);
  const line = (cells: Record<Column, string>, question: string) => {
    const head = shown.map((column) => padToWidth(truncateToWidth(cells[column], widths.get(column)!), widths.get(column)!)).join('  ');
    return `${head}  ${truncateToWidth(question, questionCells)}`;
  };
  const header = Object.fromEntries(shown.map((column) => [column, column])) as Record<Column, string>;
  const lines = [line(header, 'question'), ...all.map((row, i) => line(row, questions[i]))];
  return `${lines.join('\n')}\n${entries.length} card${entries.length === 1 ? '' : 's'}\n`;
}
