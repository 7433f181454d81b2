// The plain-text listing of kb cards: one line per card, the columns of Anki's browser.
import stringWidth from 'string-width';
import { padToWidth, truncateToWidth } from './truncate.ts';

export interface CardEntry {
  id: string;
  question: string;
  deck: string;
  state: string;
  /** ISO time. */
  due: string;
  stability: number;
  difficulty: number;
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

/** The local date a card is due ("2026-03-10"), or "now" when it is due already. */
function dueLabel(due: string, now: number): string {
  const ms = Date.parse(due);
  if (ms <= now) return 'now';
  const date = new Date(ms);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
}

export function formatCardTable(entries: readonly CardEntry[], now: number, columns: number): string {
  if (entries.length === 0) return 'No cards match.\n';
  const rows = entries.map((entry) => [
    entry.id,
    stateLabel(entry),
    dueLabel(entry.due, now),
    entry.stability.toFixed(1),
    entry.difficulty.toFixed(1),
    String(entry.reps),
    String(entry.lapses),
    entry.deck,
  ]);
  const header = ['id', 'state', 'due', 'stab', 'diff', 'reps', 'lapses', 'deck'];
  // Widths in terminal cells: a Chinese deck name takes two per character.
  const widths = header.map((title, i) => Math.min(i === 7 ? 16 : 40, Math.max(title.length, ...rows.map((row) => stringWidth(row[i])))));
  // The deck column gives way (to its title's width at least) so the question keeps 20 cells.
  const others = widths.slice(0, 7).reduce((sum, width) => sum + width + 2, 0);
  widths[7] = Math.max(header[7].length, Math.min(widths[7], columns - others - 2 - 20 - 1));
  const line = (cells: string[], question: string) => {
    const head = cells.map((cell, i) => padToWidth(truncateToWidth(cell, widths[i]), widths[i])).join('  ');
    return `${head}  ${truncateToWidth(question, Math.max(10, columns - stringWidth(head) - 3))}`;
  };
  const lines = [line(header, 'question'), ...rows.map((row, i) => line(row, entries[i].question))];
  return `${lines.join('\n')}\n${entries.length} card${entries.length === 1 ? '' : 's'}\n`;
}
