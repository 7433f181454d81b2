// The SQL of the review log cache (migration 5): events read from the log files, how far
// each file was read, the cards waiting for a replay, and rewriting a card's review_log and
// card_actions rows to what a replay gives.
import type { KbDatabase } from './db.ts';
import { batchInsert } from './batch-insert.ts';
import { withIndexesRebuilt } from './rebuilt-indexes.ts';
import type { FsrsColumns } from '../model/fsrs-state.ts';

export interface EventRow {
  id: string;
  device: string;
  n: number;
  card_id: string;
  at: number;
  kind: 'rate' | 'undo' | 'suspend' | 'unsuspend' | 'bury' | 'unbury' | 'forget';
  rating: number | null;
  duration_ms: number;
  target: string | null;
  reset_counts: 0 | 1;
  seed: string | null;
  day: string;
  /** An imported rating's state before the review, as its file said (0-3); null for kb's own (migration 8). */
  source_state: number | null;
}

/** Where an event falls in replay order: time, device, the device's own order, id. */
export interface EventKey {
  at: number;
  device: string;
  n: number;
  id: string;
}

export function compareEventKeys(a: EventKey, b: EventKey): number {
  if (a.at !== b.at) return a.at - b.at;
  if (a.device !== b.device) return a.device < b.device ? -1 : 1;
  if (a.n !== b.n) return a.n - b.n;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const ASCII = /^[\x00-\x7f]*$/;

/** Text in SQLite's BINARY order (UTF-8 bytes), as ORDER BY sorts it. */
function compareBinary(a: string, b: string): number {
  if (a === b) return 0;
  if (ASCII.test(a) && ASCII.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A card's events in the order forCard reads them: time, device, the device's own order, id. */
export function compareEventRows(a: EventRow, b: EventRow): number {
  if (a.at !== b.at) return a.at - b.at;
  const device = compareBinary(a.device, b.device);
  if (device !== 0) return device;
  if (a.n !== b.n) return a.n - b.n;
  return compareBinary(a.id, b.id);
}

/** Events in the table's key order: card, then replay order. */
export function compareStoredEventRows(a: EventRow, b: EventRow): number {
  return compareBinary(a.card_id, b.card_id) || compareEventRows(a, b);
}

/** One step of a card's replayed history, as review_log / card_actions store it. */
export interface ReplayedEntry {
  event: EventRow;
  before: FsrsColumns;
  after: FsrsColumns;
  /** JSON.stringify(after), when the replay has it already. */
  afterJson?: string;
}

export const INSERT_EVENTS = 'INSERT OR IGNORE INTO review_events (id, device, n, card_id, at, kind, rating, duration_ms, target, reset_counts, seed, day, source_state)';
/** INSERT_EVENTS' columns. */
export const EVENT_COLUMNS = 13;

/** An event's values in INSERT_EVENTS' column order, pushed onto `values` (a bulk load reuses one array). */
function pushEventValues(values: unknown[], row: EventRow): unknown[] {
  values.push(row.id, row.device, row.n, row.card_id, row.at, row.kind, row.rating, row.duration_ms, row.target, row.reset_counts, row.seed, row.day, row.source_state);
  return values;
}

/** An event's values in INSERT_EVENTS' column order. */
export function eventValues(row: EventRow): unknown[] {
  return pushEventValues([], row);
}

/** How far a log file is read into the database; this device's own, also how far it is written (review-writes.ts). */
export const SET_OFFSET = 'INSERT INTO review_log_files (name, offset) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET offset = excluded.offset';

/** One value of the meta table, read without preparing every query below (a scan asks for one). */
export function metaValue(db: KbDatabase, key: string): string | null {
  return db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key)?.value ?? null;
}

export function reviewEventQueries(db: KbDatabase) {
  // Positional parameters: binding by name costs more, and a from-scratch replay inserts every event.
  const insert = db.prepare(`${INSERT_EVENTS} VALUES (${Array(EVENT_COLUMNS).fill('?').join(', ')})`);
  // Reading a log stores its events 64 to a statement; RETURNING names the rows stored (a row
  // whose id is already there is ignored, and not returned).
  const insertEvents = batchInsert<{ id: string }>(db, INSERT_EVENTS, EVENT_COLUMNS, 64, 'RETURNING id');
  const loadEvents = batchInsert(db, INSERT_EVENTS, EVENT_COLUMNS, 64);
  const anyEvent = db.prepare<[], { one: number }>('SELECT 1 AS one FROM review_events LIMIT 1');
  const anyHistory = db.prepare<[], { one: number }>(
    'SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM review_log) OR EXISTS (SELECT 1 FROM card_actions)',
  );
  const forCard = db.prepare<[string], EventRow>('SELECT * FROM review_events WHERE card_id = ? ORDER BY at, device, n, id');
  const nextN = db.prepare<[string], { n: number | null }>('SELECT max(n) AS n FROM review_events WHERE device = ?');
  const deviceFrom = db.prepare<[string, number], EventRow>('SELECT * FROM review_events WHERE device = ? AND n >= ? ORDER BY n');
  const lastOfCard = db.prepare<[string], { at: number; device: string; n: number; id: string }>(
    'SELECT at, device, n, id FROM review_events WHERE card_id = ? ORDER BY at DESC, device DESC, n DESC, id DESC LIMIT 1',
  );
  const hasId = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM review_events WHERE id = ?');
  const hasAny = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM review_events WHERE card_id = ? LIMIT 1');
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM review_events');
  const countUpTo = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM (SELECT 1 FROM review_events LIMIT ?)');
  const offset = db.prepare<[string], { offset: number }>('SELECT offset FROM review_log_files WHERE name = ?');
  const setOffset = db.prepare<[string, number]>(SET_OFFSET);
  const getMeta = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const setMeta = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  const deleteMeta = db.prepare<[string]>('DELETE FROM meta WHERE key = ?');
  const allPending = db.prepare('INSERT OR IGNORE INTO replay_pending (card_id) SELECT DISTINCT card_id FROM review_events');
  const addPending = db.prepare<[string]>('INSERT OR IGNORE INTO replay_pending (card_id) VALUES (?)');
  // Ids from `prefix` up to the next prefix ('-' + 1 is '.'): a range on review_events_by_id.
  const prefixPending = db.prepare<[string, string]>(
    "INSERT OR IGNORE INTO replay_pending (card_id) SELECT DISTINCT card_id FROM review_events WHERE id >= ? AND id < ? AND kind = 'rate'",
  );
  // Every pending card's events in one pass, in replay order (a clone's first open replays them all).
  const pendingEvents = db.prepare<[], EventRow>(
    // CROSS JOIN keeps replay_pending the outer loop: usually empty, so an open with nothing
    // new reads nothing (else SQLite may walk every event in index order to skip the sort).
    `SELECT e.* FROM replay_pending p CROSS JOIN fsrs f ON f.card_id = p.card_id CROSS JOIN review_events e ON e.card_id = p.card_id
     ORDER BY e.card_id, e.at, e.device, e.n, e.id`,
  );
  const pendingKnown = db.prepare<[], { card_id: string }>('SELECT p.card_id FROM replay_pending p CROSS JOIN fsrs f ON f.card_id = p.card_id ORDER BY p.card_id');
  const anyPendingKnown = db.prepare<[], { one: number }>('SELECT 1 AS one FROM replay_pending p CROSS JOIN fsrs f ON f.card_id = p.card_id LIMIT 1');
  const clearPendingKnown = db.prepare('DELETE FROM replay_pending WHERE card_id IN (SELECT card_id FROM fsrs)');
  const donePending = db.prepare<[string]>('DELETE FROM replay_pending WHERE card_id = ?');
  const logsOfCard = db.prepare<[string], { uuid: string; state_before: string }>('SELECT uuid, state_before FROM review_log WHERE card_id = ?');
  const actionsOfCard = db.prepare<[string], { uuid: string; state_before: string }>('SELECT uuid, state_before FROM card_actions WHERE card_id = ?');
  const hasHistory = db.prepare<[string, string], { one: number }>(
    'SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM review_log WHERE card_id = ?) OR EXISTS (SELECT 1 FROM card_actions WHERE card_id = ?)',
  );
  // The state before the card's first standing event, in replay order.
  const historyStart = db.prepare<[string, string], { state_before: string }>(
    `SELECT h.state_before FROM (SELECT uuid, state_before FROM review_log WHERE card_id = ? UNION ALL SELECT uuid, state_before FROM card_actions WHERE card_id = ?) h
     JOIN review_events e ON e.id = h.uuid ORDER BY e.at, e.device, e.n, e.id LIMIT 1`,
  );
  const deleteLog = db.prepare<[string]>('DELETE FROM review_log WHERE uuid = ?');
  const deleteAction = db.prepare<[string]>('DELETE FROM card_actions WHERE uuid = ?');
  const updateLog = db.prepare<[string, string, string]>('UPDATE review_log SET state_before = ?, state_after = ? WHERE uuid = ?');
  const updateAction = db.prepare<[string, string, string]>('UPDATE card_actions SET state_before = ?, state_after = ? WHERE uuid = ?');
  // One row a statement, unlike events: rows this wide (two JSON states) cost more batched, 20 to
  // a statement (0.8-1.0 s CPU against 0.7 s for 100,000 ratings).
  const insertLog = db.prepare(
    `INSERT INTO review_log (uuid, card_id, rating, reviewed_at, duration_ms, state_before, state_after, device_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertAction = db.prepare(
    `INSERT INTO card_actions (uuid, card_id, action, acted_at, state_before, state_after, after_rating, device_id)
     VALUES (@uuid, @card_id, @action, @at, @state_before, @state_after, NULL, @device)`,
  );
  const allLogs = db.prepare<[], { uuid: string; card_id: string; rating: number; reviewed_at: number; duration_ms: number; state_before: string; device_id: string; source: 0 | 1; action: string | null }>(
    `SELECT uuid, card_id, rating, reviewed_at, duration_ms, state_before, device_id, 0 AS source, NULL AS action FROM review_log
     UNION ALL
     SELECT uuid, card_id, 0, acted_at, 0, state_before, device_id, 1, action FROM card_actions
     ORDER BY reviewed_at, source`,
  );

  return {
    /** Stores an event; false when one with its id is already there (read twice, or merged twice). */
    insert(row: EventRow): boolean {
      return insert.run(...eventValues(row)).changes === 1;
    },
    /**
     * Stores events in their order; returns those that were new, in that order. An event whose
     * id is already stored, or met earlier in `rows`, is skipped as insert() would skip it.
     */
    insertAll(rows: readonly EventRow[]): EventRow[] {
      const stored: EventRow[] = [];
      for (let start = 0; start < rows.length; start += insertEvents.rows) {
        const batch = rows.slice(start, start + insertEvents.rows);
        const values = batch.flatMap(eventValues);
        const ids = new Set(insertEvents.run(values).map((row) => row.id));
        // Of two rows with one id, the first listed is the one stored.
        for (const row of batch) if (ids.delete(row.id)) stored.push(row);
      }
      return stored;
    },
    /** No event stored yet: a first open, or a clone's. */
    isEmpty(): boolean {
      return anyEvent.get() === undefined;
    },
    /**
     * Stores events into an empty table: `rows` distinct by id and in compareStoredEventRows
     * order, so the rows go in as the table keeps them, and its indexes are built after.
     */
    load(rows: readonly EventRow[]): void {
      withIndexesRebuilt(db, ['review_events'], rows.length, () => {
        // One array of values for every statement (not an array per row, 100,000 on a clone's first open).
        const values: unknown[] = [];
        for (let start = 0; start < rows.length; start += loadEvents.rows) {
          values.length = 0;
          for (let i = start; i < Math.min(rows.length, start + loadEvents.rows); i++) pushEventValues(values, rows[i]);
          loadEvents.run(values);
        }
      });
    },
    /** No rating or action stored yet: the replayed history is written with its indexes built after. */
    historyIsEmpty(): boolean {
      return anyHistory.get() === undefined;
    },
    /** Runs `write`, the first rewriteHistory calls (for `events` events), with the history tables' indexes built after it. */
    writeFirstHistory(events: number, write: () => void): void {
      withIndexesRebuilt(db, ['review_log', 'card_actions'], events, write);
    },
    forCard(cardId: string): EventRow[] {
      return forCard.all(cardId);
    },
    /** The next place in a device's log. */
    nextN(device: string): number {
      const n = nextN.get(device)?.n;
      return n === null || n === undefined ? 0 : n + 1;
    },
    /** A device's events from its `n`-th on, in its log's order. */
    deviceEventsFrom(device: string, n: number): EventRow[] {
      return deviceFrom.all(device, n);
    },
    /** The card's event that replays last, as its sort key. */
    lastOf(cardId: string): EventKey | null {
      return lastOfCard.get(cardId) ?? null;
    },
    hasEvent(id: string): boolean {
      return hasId.get(id) !== undefined;
    },
    hasEvents(cardId: string): boolean {
      return hasAny.get(cardId) !== undefined;
    },
    count(): number {
      return count.get()?.n ?? 0;
    },
    /** At least `n` events are stored (counted up to `n`). */
    countsAtLeast(n: number): boolean {
      return (countUpTo.get(n)?.n ?? 0) >= n;
    },
    offset(name: string): number {
      return offset.get(name)?.offset ?? 0;
    },
    setOffset(name: string, bytes: number): void {
      setOffset.run(name, bytes);
    },
    meta(key: string): string | null {
      return getMeta.get(key)?.value ?? null;
    },
    setMeta(key: string, value: string): void {
      setMeta.run(key, value);
    },
    deleteMeta(key: string): void {
      deleteMeta.run(key);
    },
    /** Every card with an event waits for a replay (the scheduling settings changed). */
    markAllPending(): void {
      allPending.run();
    },
    markPending(cardId: string): void {
      addPending.run(cardId);
    },
    /** Every card with a rating whose id starts with `prefix` (ending in '-') waits for a replay. */
    markPendingByRatingPrefix(prefix: string): void {
      prefixPending.run(prefix, `${prefix.slice(0, -1)}.`);
    },
    /** The events of every pending card this database knows, grouped by card, each group in replay order. */
    *pendingEventsByCard(): Generator<[string, EventRow[]]> {
      let card: string | null = null;
      let group: EventRow[] = [];
      for (const row of pendingEvents.iterate()) {
        if (row.card_id !== card) {
          if (card !== null) yield [card, group];
          card = row.card_id;
          group = [];
        }
        group.push(row);
      }
      if (card !== null) yield [card, group];
    },
    /** The pending cards this database knows, in card order. */
    pendingKnownCards(): string[] {
      return pendingKnown.all().map((row) => row.card_id);
    },
    hasPendingKnown(): boolean {
      return anyPendingKnown.get() !== undefined;
    },
    /** Pending cards this database knows are replayed: no longer pending. */
    clearPendingKnown(): void {
      clearPendingKnown.run();
    },
    donePending(cardId: string): void {
      donePending.run(cardId);
    },
    /**
     * Makes a card's review_log and card_actions rows what its replay gives. Rows of events
     * that still stand are updated in place (their rowid, which kb undo orders by, is kept);
     * events new to this database are inserted; rows of events taken back are deleted. A
     * state_before keeps its note-restore patch while the state it records is unchanged.
     */
    rewriteHistory(cardId: string, entries: readonly ReplayedEntry[], options: { first?: boolean } = {}): void {
      const stored = new Map<string, string>();
      // first: inside writeFirstHistory, whose tables have no rows of the card (nor the index to look them up).
      if (!options.first && hasHistory.get(cardId, cardId) !== undefined) {
        for (const row of logsOfCard.all(cardId)) stored.set(row.uuid, row.state_before);
        for (const row of actionsOfCard.all(cardId)) stored.set(row.uuid, row.state_before);
      }
      // Only rows stored before can be left standing or not: none in a card's first history.
      const standing = stored.size > 0 ? new Set<string>() : null;
      // Each entry starts from the row the one before left (the same object): its JSON is reused.
      let previous: FsrsColumns | null = null;
      let previousJson = '';
      for (const { event, before, after, afterJson: json } of entries) {
        standing?.add(event.id);
        const old = standing === null ? undefined : stored.get(event.id);
        const beforeJson =
          old !== undefined && sameColumns(JSON.parse(old) as FsrsColumns, before) ? old : before === previous ? previousJson : JSON.stringify(before);
        const afterJson = json ?? JSON.stringify(after);
        previous = after;
        previousJson = afterJson;
        const isRating = event.kind === 'rate';
        if (old !== undefined) (isRating ? updateLog : updateAction).run(beforeJson, afterJson, event.id);
        else if (isRating) insertLog.run(event.id, cardId, event.rating, event.at, event.duration_ms, beforeJson, afterJson, event.device);
        else insertAction.run({ uuid: event.id, card_id: cardId, action: event.kind, at: event.at, state_before: beforeJson, state_after: afterJson, device: event.device });
      }
      for (const uuid of stored.keys()) {
        if (standing?.has(uuid)) continue;
        deleteLog.run(uuid);
        deleteAction.run(uuid);
      }
    },
    /** The row the card's last replay started from (its first history entry's state before; with any note-restore patch), or null with no history. */
    historyStart(cardId: string): FsrsColumns | null {
      const first = historyStart.get(cardId, cardId);
      return first ? (JSON.parse(first.state_before) as FsrsColumns) : null;
    },
    /** The history written before the review log files existed (migration): ratings and actions, oldest first. */
    legacyHistory() {
      return allLogs.all();
    },
  };
}

/** The stored row fields, ignoring anything else a state_before carries (the note-restore patch). */
export function sameColumns(a: FsrsColumns, b: FsrsColumns): boolean {
  const keys = ['due', 'stability', 'difficulty', 'elapsed_days', 'scheduled_days', 'learning_steps', 'reps', 'lapses', 'state', 'last_review', 'suspended', 'buried_until'] as const;
  return keys.every((key) => a[key] === b[key]) && (a.leech ?? 0) === (b.leech ?? 0);
}

export type ReviewEventQueries = ReturnType<typeof reviewEventQueries>;
