// The SQL of today's queue: the candidates, counted and read a page at a time, and what was
// answered today. The rules (order, limits, what FSRS computes) live in src/srs/; what a
// review writes (a card's fsrs row, a rating's review_log row) is review-writes.ts.
import type { Statement } from 'better-sqlite3';
import type { KbDatabase } from './db.ts';
import type { FsrsColumns, FsrsStateCode } from '../model/fsrs-state.ts';
import { shuffleKey } from './shuffle-key.ts';
import { FSRS_COLUMNS } from './review-writes.ts';

export interface CandidateRow {
  id: string;
  state: FsrsStateCode;
  due: number;
  suspended: 0 | 1;
  buried_until: number | null;
}

/** A new card, with its place in the knowledge base (the order new cards come in). */
export interface NewCandidateRow extends CandidateRow {
  path: string;
  line: number;
}

/** A new card with its place in one study day's random order (kb_shuffle). */
export interface ShuffledCandidateRow extends CandidateRow {
  shuffle_key: number;
}

/** The cards kb review may show: live (not orphaned), not suspended, not buried at `now` (the first argument). */
function candidateFrom(filterSql: string, join = 'JOIN'): string {
  return `FROM cards c ${join} fsrs f ON f.card_id = c.id
    WHERE c.orphan = 0 AND f.suspended = 0 AND (f.buried_until IS NULL OR f.buried_until <= ?)${filterSql}`;
}

function candidateBase(filterSql: string, extraColumns = '', join = 'JOIN'): string {
  return `SELECT c.id AS id, f.state AS state, f.due AS due, f.suspended AS suspended, f.buried_until AS buried_until${extraColumns}
    ${candidateFrom(filterSql, join)}`;
}

export interface EligibleCounts {
  /** Reviews due before the day ends. */
  review: number;
  /** New cards. */
  new: number;
  /** Cards that could be shown at all (not suspended or buried). */
  cards: number;
}

export interface CardFilter {
  /** A tag; also matches its sub-tags (`vllm` matches `vllm/paged-attention`). */
  tag?: string;
  /** A deck; also matches its sub-decks. */
  deck?: string;
}

export function filterSql(filter: CardFilter): { sql: string; args: string[] } {
  const clauses: string[] = [];
  const args: string[] = [];
  if (filter.deck !== undefined) {
    clauses.push("(c.deck = ? OR substr(c.deck, 1, length(?) + 1) = ? || '/')");
    args.push(filter.deck, filter.deck, filter.deck);
  }
  if (filter.tag !== undefined) {
    clauses.push(
      "EXISTS (SELECT 1 FROM json_each(c.tags) t WHERE t.value = ? OR substr(t.value, 1, length(?) + 1) = ? || '/')",
    );
    args.push(filter.tag, filter.tag, filter.tag);
  }
  return { sql: clauses.map((clause) => ` AND ${clause}`).join(''), args };
}

export function reviewQueries(db: KbDatabase) {
  // Deterministic: SQLite may compute it once per row and compare keys as it sorts.
  db.function('kb_shuffle', { deterministic: true }, (id, seed) => shuffleKey(String(id), Number(seed)));
  // newPage runs once per deck and page when new cards are interleaved: each form is prepared once.
  const newPageStatements = new Map<string, Statement<(string | number)[], NewCandidateRow>>();
  const answeredSince = db.prepare<[number], { new_cards: number; reviews: number }>(
    `SELECT count(DISTINCT CASE WHEN json_extract(state_before, '$.state') = 0 THEN card_id END) AS new_cards,
            count(CASE WHEN json_extract(state_before, '$.state') = 2 THEN 1 END) AS reviews
     FROM review_log WHERE reviewed_at >= ?`,
  );
  // Counts from the fsrs_queue index alone, less the orphans (few: cards_orphaned; the CROSS
  // JOIN keeps them as the outer loop). Joining every card's row cost ~20 ms with 10,000 cards.
  const liveCount = (condition: string) =>
    `((SELECT count(*) FROM fsrs f WHERE f.suspended = 0 AND ${condition})
      - (SELECT count(*) FROM cards c CROSS JOIN fsrs f ON f.card_id = c.id WHERE c.orphan = 1 AND f.suspended = 0 AND ${condition}))`;
  const notBuried = '(f.buried_until IS NULL OR f.buried_until <= @now)';
  const dueBefore = db.prepare<{ until: number }, { n: number }>(`SELECT ${liveCount('f.state IN (1, 2, 3) AND f.due < @until')} AS n`);
  const queueCounts = db.prepare<{ now: number; dayEnd: number }, EligibleCounts>(
    `SELECT ${liveCount(`f.state = 2 AND f.due < @dayEnd AND ${notBuried}`)} AS review,
            ${liveCount(`f.state = 0 AND f.due < @dayEnd AND ${notBuried}`)} AS new,
            ${liveCount(notBuried)} AS cards`,
  );
  // A session's queued cards, given as JSON [[id, state, due, suspended, buried_until], ...],
  // whose row no longer says that: json_each is the outer loop, each card one primary-key look-up.
  const changedEntries = db.prepare<[string], FsrsColumns & { card_id: string }>(
    `SELECT f.card_id AS card_id, ${FSRS_COLUMNS.split(', ').map((column) => `f.${column} AS ${column}`).join(', ')}
     FROM json_each(?) q CROSS JOIN fsrs f ON f.card_id = q.value ->> 0
     WHERE f.state IS NOT q.value ->> 1 OR f.due IS NOT q.value ->> 2
        OR f.suspended IS NOT q.value ->> 3 OR f.buried_until IS NOT q.value ->> 4`,
  );
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  const filteredCounts = (filterSql: string) =>
    db.prepare<(string | number)[], { review: number | null; new: number | null; cards: number }>(
      `SELECT sum(f.state = 2 AND f.due < ?) AS review, sum(f.state = 0 AND f.due < ?) AS new, count(*) AS cards ${candidateFrom(filterSql)}`,
    );

  return {
    /**
     * Cards that could be in today's queue, new cards aside (their order is a setting, see
     * src/srs/new-card-order.ts): learning and review cards due before `dayEnd` (most overdue
     * first, reviews at most `reviewLimit`). Suspended, buried and orphaned cards are left out.
     */
    candidates(filter: CardFilter, now: number, dayEnd: number, reviewLimit: number): CandidateRow[] {
      return [...this.learningCandidates(filter, now, dayEnd), ...this.reviewPage(filter, now, dayEnd, null, reviewLimit)];
    },

    /** Learning and relearning cards due before `dayEnd`, earliest first. */
    learningCandidates(filter: CardFilter, now: number, dayEnd: number): CandidateRow[] {
      const { sql, args } = filterSql(filter);
      return db
        .prepare<(string | number)[], CandidateRow>(`${candidateBase(sql)} AND f.state IN (1, 3) AND f.due < ? ORDER BY f.due, c.id`)
        .all(now, ...args, dayEnd);
    },

    /** How many reviews are due before `dayEnd`, how many new cards wait (before daily limits), and how many cards could be shown. */
    eligibleCounts(filter: CardFilter, now: number, dayEnd: number): EligibleCounts {
      const { sql, args } = filterSql(filter);
      const row = sql === '' ? queueCounts.get({ now, dayEnd }) : filteredCounts(sql).get(dayEnd, dayEnd, now, ...args);
      return { review: row?.review ?? 0, new: row?.new ?? 0, cards: row?.cards ?? 0 };
    },

    /** Up to `limit` reviews due before `dayEnd`, most overdue first, after the card `after`. */
    reviewPage(filter: CardFilter, now: number, dayEnd: number, after: CandidateRow | null, limit: number): CandidateRow[] {
      const { sql, args } = filterSql(filter);
      const keyset = after ? ' AND (f.due, c.id) > (?, ?)' : '';
      return db
        .prepare<(string | number)[], CandidateRow>(`${candidateBase(sql)} AND f.state = 2 AND f.due < ?${keyset} ORDER BY f.due, c.id LIMIT ?`)
        .all(now, ...args, dayEnd, ...(after ? [after.due, after.id] : []), limit);
    },

    /**
     * Up to `limit` new cards in knowledge-base order (file, line), after the card `after`.
     * Two ways to read them: `scan` walks cards_new_order from `after` and stops at `limit`
     * new cards, quick when new cards are many among the cards; otherwise (the default) the
     * new cards are found through fsrs_queue and sorted, whose cost grows only with their number.
     * With `inDeck`, only the cards of that one deck (not its sub-decks): they are always walked
     * in cards_deck_order, a deck being a small part of the cards.
     */
    newPage(filter: CardFilter, now: number, dayEnd: number, after: NewCandidateRow | null, limit: number, scan = false, inDeck?: string): NewCandidateRow[] {
      const { sql, args } = filterSql(filter);
      const keyset = after ? ' AND (c.path, c.line, c.id) > (?, ?, ?)' : '';
      const deck = inDeck === undefined ? '' : ' AND c.deck = ?';
      // CROSS JOIN keeps the cards (cards_new_order, cards_deck_order) as the outer loop.
      const text = `${candidateBase(sql + deck, ', c.path AS path, c.line AS line', scan || inDeck !== undefined ? 'CROSS JOIN' : 'JOIN')} AND f.state = 0 AND f.due < ?${keyset} ORDER BY c.path, c.line, c.id LIMIT ?`;
      let statement = newPageStatements.get(text);
      if (!statement) newPageStatements.set(text, (statement = db.prepare<(string | number)[], NewCandidateRow>(text)));
      return statement.all(now, ...args, ...(inDeck === undefined ? [] : [inDeck]), dayEnd, ...(after ? [after.path, after.line, after.id] : []), limit);
    },

    /**
     * The decks (note folders among them) that hold live cards matching the filter's deck, the
     * least served first: fewest cards already introduced (no longer new), then by name. A round
     * of new cards then starts where the last one stopped, today's as it was read before and
     * tomorrow's (by name alone, every read began at the first deck: with fewer new cards a day
     * than decks, the decks late in the alphabet never got one).
     */
    decks(filter: CardFilter): string[] {
      const { sql, args } = filterSql({ deck: filter.deck });
      return db
        .prepare<string[], string>(`SELECT c.deck FROM cards c JOIN fsrs f ON f.card_id = c.id WHERE c.orphan = 0${sql} GROUP BY c.deck ORDER BY sum(f.state != 0), c.deck`)
        .pluck()
        .all(...args);
    },

    /**
     * Up to `limit` new cards in the random order of `seed` (kb_shuffle of the card id), after
     * the card `after`. The keys are computed for every new card, and only the page is sorted.
     */
    shuffledNewPage(filter: CardFilter, now: number, dayEnd: number, seed: number, after: ShuffledCandidateRow | null, limit: number): ShuffledCandidateRow[] {
      const { sql, args } = filterSql(filter);
      const keyset = after ? ' AND (kb_shuffle(c.id, ?), c.id) > (?, ?)' : '';
      return db
        .prepare<(string | number)[], ShuffledCandidateRow>(
          `${candidateBase(sql, ', kb_shuffle(c.id, ?) AS shuffle_key')} AND f.state = 0 AND f.due < ?${keyset} ORDER BY shuffle_key, c.id LIMIT ?`,
        )
        .all(seed, now, ...args, dayEnd, ...(after ? [seed, after.shuffle_key, after.id] : []), limit);
    },

    /** New cards first answered, and review-state cards answered, since `since`. */
    answeredSince(since: number): { newCards: number; reviews: number } {
      const row = answeredSince.get(since);
      return { newCards: row?.new_cards ?? 0, reviews: row?.reviews ?? 0 };
    },

    /**
     * SQLite's data_version of this connection: it changes when another connection (another kb
     * process) commits to the database, and only then; no table is read. A session looks at
     * it to tell, at each redraw, whether anything could have changed its queued cards.
     */
    dataVersion(): number {
      return dataVersion.get() ?? 0;
    },

    /**
     * The rows of those `entries` (cards as a session queued them) that no longer hold the
     * entry's state, due, suspension or burial, in one query; a card with no row is left out.
     */
    changedEntries(entries: readonly Pick<CandidateRow, 'id' | 'state' | 'due' | 'suspended' | 'buried_until'>[]): Array<FsrsColumns & { card_id: string }> {
      if (entries.length === 0) return [];
      return changedEntries.all(JSON.stringify(entries.map((entry) => [entry.id, entry.state, entry.due, entry.suspended, entry.buried_until])));
    },

    /** Cards (not new) due before `until`: the load waiting at that time, of the cards `filter` picks. */
    dueCountBefore(until: number, filter: CardFilter = {}): number {
      const { sql, args } = filterSql(filter);
      if (sql === '') return dueBefore.get({ until })?.n ?? 0;
      return (
        db
          .prepare<(string | number)[], { n: number }>(
            `SELECT count(*) AS n FROM cards c JOIN fsrs f ON f.card_id = c.id WHERE c.orphan = 0 AND f.suspended = 0 AND f.state IN (1, 2, 3) AND f.due < ?${sql}`,
          )
          .get(until, ...args)?.n ?? 0
      );
    },
  };
}

export type ReviewQueries = ReturnType<typeof reviewQueries>;
