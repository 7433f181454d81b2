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

/** Columns a narrow terminal drops first, so the other columns keep room: `kb cards --json` has them all. */
const DROPPED_FIRST = ['lapses', 'diff', 'stab', 'reps'];

type Flexible = 'state' | 'deck' | 'question';

/**
 * How the state, deck and question share the room the other columns leave: each step raises one
 * column to a width (never past what its cells need), in this order, as far as the room goes.
 * So on a narrow terminal each column gives way a little, not one alone: the deck was cut to
 * "ba…" at 80 columns beside a "learning suspended" column kept whole and 24 cells kept for the
 * question (found as a user). `word`: the state's FSRS state ("relearning") and a cell for a "…".
 */
function steps(word: number): [Flexible, number][] {
  return [
    ['question', 20],
    ['state', word],
    ['deck', 8],
    ['state', 20], // one flag: "relearning suspended"
    ['question', 24],
    ['state', Infinity],
    ['deck', 16],
    // A long deck name (an Obsidian folder path) is shown whole where the question keeps 60 cells beside it.
    ['question', 60],
    ['deck', Infinity],
    ['question', Infinity],
  ];
}
/** The steps a narrow terminal drops numbers for (lapses, then difficulty, ...), the question's 24 cells the last. */
const FIRST_STEPS = 5;

function shareRoom(room: number, natural: Record<Flexible, number>, word: number, count = Infinity): Record<Flexible, number> {
  const widths: Record<Flexible, number> = { state: 0, deck: 0, question: 0 };
  let left = room;
  for (const [column, target] of steps(word).slice(0, count)) {
    const taken = Math.min(left, Math.max(0, Math.min(target, natural[column]) - widths[column]));
    widths[column] += taken;
    left -= taken;
  }
  return widths;
}

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
  type Column = keyof (typeof all)[number];
  const order: Column[] = ['id', 'state', 'due', 'stab', 'diff', 'reps', 'lapses', 'deck'];
  // Widths in terminal cells (a Chinese deck name takes two per character), measured once.
  // (A loop, not Math.max(...rows): a spread of 150,000 cards overflows the stack.)
  const widest = (texts: Iterable<string>, title: string) => {
    let most = stringWidth(title);
    for (const text of texts) most = Math.max(most, stringWidth(text));
    return most;
  };
  const natural = new Map(order.map((column) => [column, Math.min(40, widest(all.map((row) => row[column]), column))]));
  const flexibleNatural: Record<Flexible, number> = {
    state: natural.get('state')!,
    deck: natural.get('deck')!,
    question: widest(questions, 'question'),
  };
  // The FSRS state alone ("relearning"), and a cell for the "…" that says flags follow when some do.
  const word = Math.min(flexibleNatural.state, widest(entries.map((entry) => entry.state), 'state') + 1);
  // The room the state, deck and question share: the line less the other columns, the two cells
  // after each column, and the terminal's last cell (a line that reaches it wraps in some terminals).
  let shown = order;
  const room = () => columns - 1 - shown.reduce((sum, column) => sum + 2 + (column === 'state' || column === 'deck' ? 0 : natural.get(column)!), 0);
  // A narrow terminal drops numbers, one by one, while the first steps lack room.
  const first = shareRoom(Infinity, flexibleNatural, word, FIRST_STEPS);
  const firstCells = first.state + first.deck + first.question;
  for (const column of DROPPED_FIRST) if (room() < firstCells) shown = shown.filter((other) => other !== column);
  const shared = shareRoom(room(), flexibleNatural, word);
  const widths = new Map(natural);
  // A terminal too narrow for the first cells of each still shows a few of each (as before: the line may wrap there).
  widths.set('state', Math.max(4, shared.state));
  widths.set('deck', Math.max(4, shared.deck));
  // Every cell is cut and padded to its column's width, so every line's head has the same width.
  const headCells = shown.reduce((sum, column) => sum + widths.get(column)! + 2, 0);
  const questionCells = Math.max(10, columns - 1 - headCells);
  const line = (cells: Record<Column, string>, question: string) => {
    const head = shown.map((column) => padToWidth(truncateToWidth(cells[column], widths.get(column)!), widths.get(column)!)).join('  ');
    return `${head}  ${truncateToWidth(question, questionCells)}`;
  };
  const header = Object.fromEntries(shown.map((column) => [column, column])) as Record<Column, string>;
  const lines = [line(header, 'question'), ...all.map((row, i) => line(row, questions[i]))];
  return `${lines.join('\n')}\n${entries.length} card${entries.length === 1 ? '' : 's'}\n`;
}
