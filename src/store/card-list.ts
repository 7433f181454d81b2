// The SQL of kb cards (Anki's browser): live cards with their schedule, filtered by text,
// state, deck and tag, in knowledge-base order.
import type { KbDatabase } from './db.ts';
import { filterSql, type CardFilter } from './review-queries.ts';

/** What --state selects: an FSRS state, or a flag (suspended, buried at `now`, leech). */
export const CARD_STATES = ['new', 'learning', 'review', 'relearning', 'suspended', 'buried', 'leech'] as const;
export type CardStateFilter = (typeof CARD_STATES)[number];

export interface CardListFilter extends CardFilter {
  /** Words every card shown contains in its question or answer (case-insensitive), or the card's id. */
  query?: string;
  state?: CardStateFilter;
}

export interface CardListRow {
  id: string;
  front: string;
  deck: string;
  tags: string;
  path: string;
  line: number;
  state: 0 | 1 | 2 | 3;
  due: number;
  stability: number;
  difficulty: number;
  reps: number;
  lapses: number;
  last_review: number | null;
  suspended: 0 | 1;
  buried_until: number | null;
  leech: 0 | 1;
  /** A kb-calc card: its question holds {placeholders} until the day's values are drawn. */
  calc: 0 | 1;
}

const STATE_SQL: Record<CardStateFilter, string> = {
  new: 'f.state = 0',
  learning: 'f.state = 1',
  review: 'f.state = 2',
  relearning: 'f.state = 3',
  suspended: 'f.suspended = 1',
  buried: 'f.buried_until > @now',
  leech: 'f.leech = 1',
};

/** `like` pattern for a word: its % and _ are literal. */
function containing(word: string): string {
  return `%${word.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function listCards(db: KbDatabase, filter: CardListFilter, now: number): CardListRow[] {
  const scope = filterSql(filter);
  const clauses = ['c.orphan = 0'];
  const named: Record<string, string | number> = { now };
  const positional: string[] = [...scope.args];
  if (filter.state) clauses.push(STATE_SQL[filter.state]);
  const words = (filter.query ?? '').trim().split(/\s+/).filter(Boolean);
  // Words that are card ids name cards, any of them (kb cards ID1 ID2 lists both); the other
  // words must all be in the question or the answer. ANDed with the rest, a list of ids matched nothing.
  const isId = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM cards WHERE id = ?');
  const ids = words.filter((word) => isId.get(word) !== undefined);
  if (ids.length > 0) {
    ids.forEach((id, i) => (named[`id${i}`] = id));
    clauses.push(`c.id IN (${ids.map((_, i) => `@id${i}`).join(', ')})`);
  }
  words.filter((word) => !ids.includes(word)).forEach((word, i) => {
    named[`w${i}`] = containing(word);
    clauses.push(`(lower(c.front) LIKE @w${i} ESCAPE '\\' OR lower(c.back) LIKE @w${i} ESCAPE '\\')`);
  });
  // better-sqlite3 binds named and positional parameters together: the scope's ? come first.
  const sql = `SELECT c.id, c.front, c.deck, c.tags, c.path, c.line, f.state, f.due, f.stability, f.difficulty, f.reps, f.lapses,
      f.last_review, f.suspended, f.buried_until, f.leech, c.calc IS NOT NULL AS calc
    FROM cards c JOIN fsrs f ON f.card_id = c.id
    WHERE ${clauses.join(' AND ')}${scope.sql}
    ORDER BY c.path, c.line, c.id`;
  return db.prepare(sql).all(...positional, named) as CardListRow[];
}

/** Live cards flagged leech (kb stats shows the number; kb cards --state leech lists them). */
export function countLeeches(db: KbDatabase): number {
  const row = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM fsrs f JOIN cards c ON c.id = f.card_id WHERE f.leech = 1 AND c.orphan = 0').get();
  return row?.n ?? 0;
}
