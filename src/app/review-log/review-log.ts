// The review log files and the database that caches them. This device appends each event to
// its own file (reviews/<device>.jsonl) inside the transaction that stores it
// (kb/review-log/device-log.ts); opening kb reads what any device appended since the last
// read and replays the cards it touched, so the schedule is a function of the union of the
// logs: the same on every clone.
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KbDatabase } from '../../store/db.ts';
import { cardQueries } from '../../store/card-rows.ts';
import { fileQueries } from '../../store/file-stamps.ts';
import { columnsFromState, stateFromColumns, type FsrsColumns } from '../../model/fsrs-state.ts';
import { newCardState } from '../../kb/seed-fsrs.ts';
import { compareEventRows, compareStoredEventRows, reviewEventQueries, sameColumns, type EventKey, type EventRow, type ReviewEventQueries } from '../../store/review-events.ts';
import { fsrsQueries, type FsrsQueries } from '../../store/review-writes.ts';
import { withScratchBuild } from '../../store/scratch-build.ts';
import { eventRow, seedOf, type ReviewEvent } from '../../kb/review-log/event.ts';
import { DeviceLog, type NewEvent } from '../../kb/review-log/device-log.ts';
import { listLogFiles, readLogFrom } from '../../kb/review-log/log-file.ts';
import { commitWritebacks, prepareWriteback, type PreparedWriteback } from '../../kb/writeback.ts';
import { DEFAULT_ID_KEY } from '../../kb/card-meta.ts';
import { reviewFieldValues } from '../../kb/review-fields-merge.ts';
import { deferFields, deferredFields, noteWrites, settleDeferred, type NoteWrites } from './deferred-fields.ts';
import { reviewFields } from '../../srs/review-fields.ts';
import { reviewDayLabel } from '../../srs/study-day.ts';
import { replayCard, replaySettingsKey } from '../../srs/replay.ts';
import { IMPORTED_EVENT_PREFIX } from '../../srs/imported-copies.ts';
import type { FsrsScheduler } from '../../srs/fsrs.ts';

export const REVIEW_LOG_FOLDER = 'reviews';

/** Where a knowledge base keeps its logs: `reviews/` in it; the bundled (read-only) one's beside its database in the data folder. */
export function reviewLogFolder(target: { root: string; writable: boolean; db: KbDatabase }): string | null {
  if (target.writable) return join(target.root, REVIEW_LOG_FOLDER);
  const dbPath = target.db.name;
  return dbPath === ':memory:' || dbPath === '' ? null : join(dirname(dbPath), REVIEW_LOG_FOLDER);
}

export interface IngestReport {
  /** Events new to this database. */
  read: number;
  /** Cards whose row changed in the replay. */
  changed: string[];
  /** Lines that are not events, with where they are: skipped. */
  problems: string[];
  /** Notes whose review fields were rewritten from the replayed state. */
  rewritten: number;
}

/** A replay about to run, and why: events new to this database, or the FSRS settings in kb.json changed (every event). */
export interface Replaying {
  events: number;
  cause: 'logs' | 'settings';
}

export const LOG_EXPORTED_KEY = 'review_log_exported';
const REPLAY_SETTINGS_KEY = 'replay_settings';
/**
 * The replay's own rules, as this database last applied them (not kb.json's settings): when a
 * kb that replays otherwise opens it, the cards the change concerns are replayed once.
 * 1: an imported copy of a rating the logs hold is skipped (srs/imported-copies.ts).
 */
const REPLAY_RULES_KEY = 'replay_rules';
const REPLAY_RULES = '1';
/** Logs this long (~6,000 events) read into an empty database, or this many events replayed into an empty history, are written in a rollback journal (see ingest). */
const SCRATCH_BUILD_BYTES = 1 << 20;
const SCRATCH_BUILD_EVENTS = 6_000;

export class ReviewLog {
  readonly folder: string;
  readonly device: string;
  /** This device's file: the use cases log their events there (DeviceLog.record), in their transactions. */
  readonly deviceLog: DeviceLog;
  private readonly db: KbDatabase;
  private readonly scheduler: FsrsScheduler;
  private readonly events: ReviewEventQueries;
  /** The cards' fsrs rows, which a replay reads and writes (review-writes.ts is their one writer). */
  private readonly fsrs: FsrsQueries;
  /** kb.json's idKey: where a note's id is, checked before its fields are written. */
  private readonly idKey: string;

  constructor(db: KbDatabase, folder: string, scheduler: FsrsScheduler, idKey = DEFAULT_ID_KEY) {
    this.db = db;
    this.idKey = idKey;
    this.folder = folder;
    this.scheduler = scheduler;
    this.deviceLog = new DeviceLog(db, folder, scheduler.settings.dayStartsAt);
    this.device = this.deviceLog.device;
    this.events = reviewEventQueries(db);
    this.fsrs = fsrsQueries(db);
  }

  get path(): string {
    return this.deviceLog.path;
  }

  private get fileName(): string {
    return this.deviceLog.fileName;
  }

  /** One IMMEDIATE transaction that logs: a failure also takes back the lines it appended to this device's file. */
  private transaction<T>(fn: () => T): T {
    const appends = this.deviceLog.noteAppends();
    if (appends === null) return fn(); // already inside one: its outer call takes the lines back
    try {
      return this.db.transaction(fn).immediate();
    } catch (error) {
      appends.takeBack();
      throw error;
    } finally {
      appends.end();
    }
  }

  /**
   * Once git's operation has ended, appends this device's events that waited for it, in their
   * order (DeviceLog.appendHeld), and reads first what the file as git left it holds that this
   * database lacks (their count is returned; the cards are marked for a replay). Inside the
   * caller's transaction.
   */
  private appendHeld(problems: string[]): number {
    const from = this.deviceLog.heldFrom();
    if (from === null || this.deviceLog.gitBusy()) return 0;
    let read = 0;
    try {
      statSync(this.path);
      read = this.readFile(this.fileName, problems);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    this.deviceLog.appendHeld(from);
    return read;
  }

  /** The card's event that replays last (any device's), or null without one. */
  latestEvent(cardId: string): EventKey | null {
    return this.events.lastOf(cardId);
  }

  /**
   * This device's file holds lines the database lacks (kb was killed between the append and
   * the commit): they are read and replayed before anything new is logged after them. Call it
   * first in the transaction that will log, before the card's row is read.
   */
  catchUp(): void {
    // Events that waited for a git operation to end go first: they came before the one about to be logged.
    const read = this.appendHeld([]);
    let size: number | null;
    try {
      size = statSync(this.path).size;
    } catch {
      size = null;
    }
    if (size !== null && size !== this.events.offset(this.fileName)) this.readFile(this.fileName, []);
    else if (read === 0) return;
    this.replayPending();
  }

  /**
   * Reads what every log appended since the last read and replays the cards it touched (one
   * transaction). `onReplay` hears, before it starts, how many events the replay goes over and
   * why: a clone's first open or new settings in kb.json replay them all, which takes seconds.
   */
  ingest(options: { root: string; writable: boolean; onReplay?: (replay: Replaying) => void }): IngestReport {
    // The usual open: nothing appended, nothing waiting, same settings. Checked without the
    // write lock, so commands that only read never queue behind one another.
    const writes = noteWrites(options);
    if (this.upToDate()) return { read: 0, changed: [], problems: [], rewritten: this.finishFields(options.root, writes, []) };
    const problems: string[] = [];
    // A clone's first open replays the whole history into review_log: with SQLite's default
    // 2 MB page cache, its random-keyed inserts spill to disk (~3x slower at 100,000 events).
    this.db.pragma('cache_size = -65536');
    // What this transaction stores is a cache of the fsynced log files: lost to a power cut, it
    // is read again (the offsets roll back with it). So its commit need not wait for the disk.
    const synchronous = this.db.pragma('synchronous', { simple: true }) as number;
    this.db.pragma('synchronous = NORMAL');
    let outcome: { read: number; changed: string[] };
    try {
      const transaction = this.db.transaction(() => {
        const settingsChanged = this.followSettings();
        this.followRules();
        // Before the files are read: this device's events held during a git operation that has ended.
        let read = this.appendHeld(problems);
        // The events of cards that had none before: kept as read, so the replay needs not read them back.
        const fresh = new Map<string, EventRow[] | null>();
        const names = listLogFiles(this.folder);
        if (this.events.isEmpty()) read = this.loadFiles(names, problems, fresh);
        else for (const name of names) read += this.readFile(name, problems, fresh);
        const replaying = settingsChanged ? this.events.count() : read;
        if (replaying > 0) options.onReplay?.({ events: replaying, cause: settingsChanged ? 'settings' : 'logs' });
        const changed = this.replayPending(fresh);
        if (writes.mode === 'deferred') deferFields(this.events, changed);
        return { read, changed };
      });
      // A database with no history yet, about to be filled from long logs (a clone's first open):
      // written once in a rollback journal rather than twice through the WAL (scratch-build.ts).
      outcome = this.fromScratch() ? withScratchBuild(this.db, () => transaction.immediate()) : transaction.immediate();
    } finally {
      this.db.pragma(`synchronous = ${synchronous}`);
    }
    const { read, changed } = outcome;
    return { read, changed, problems, rewritten: this.finishFields(options.root, writes, changed) };
  }

  /**
   * The replay about to run fills an empty history from many events (asked without the write
   * lock: a hint): a clone's first open, whose first read stores every event (the cards are not
   * scanned yet), and whose replay after the scan writes every rating's review_log row.
   */
  private fromScratch(): boolean {
    if (!this.events.historyIsEmpty()) return false;
    if (!this.events.isEmpty()) return this.events.hasPendingKnown() && this.events.countsAtLeast(SCRATCH_BUILD_EVENTS);
    let bytes = 0;
    for (const name of listLogFiles(this.folder)) {
      try {
        bytes += statSync(join(this.folder, name)).size;
      } catch {
        // gone meanwhile: the read says so
      }
    }
    return bytes >= SCRATCH_BUILD_BYTES;
  }

  private upToDate(): boolean {
    if (this.events.meta(REPLAY_SETTINGS_KEY) !== replaySettingsKey(this.scheduler.settings)) return false;
    if (this.events.meta(REPLAY_RULES_KEY) !== REPLAY_RULES) return false;
    if (this.events.hasPendingKnown()) return false;
    if (this.deviceLog.heldFrom() !== null && !this.deviceLog.gitBusy()) return false;
    for (const name of listLogFiles(this.folder)) {
      let size: number;
      try {
        size = statSync(join(this.folder, name)).size;
      } catch {
        return false;
      }
      if (size !== this.events.offset(name)) return false;
    }
    return true;
  }

  /** The settings a replay depends on changed since the last one: every card with events is replayed (true). */
  private followSettings(): boolean {
    const key = replaySettingsKey(this.scheduler.settings);
    const stored = this.events.meta(REPLAY_SETTINGS_KEY);
    if (stored === key) return false;
    // A database that never recorded them (new, or migrated) already is what its rows say.
    if (stored !== null) this.events.markAllPending();
    this.events.setMeta(REPLAY_SETTINGS_KEY, key);
    return stored !== null;
  }

  /** A database replayed under older rules: the cards with imported ratings are replayed (a copy merged before counted twice). */
  private followRules(): void {
    if (this.events.meta(REPLAY_RULES_KEY) === REPLAY_RULES) return;
    this.events.markPendingByRatingPrefix(IMPORTED_EVENT_PREFIX);
    this.events.setMeta(REPLAY_RULES_KEY, REPLAY_RULES);
  }

  /**
   * Imports events from elsewhere (a revlog CSV) as this device's: appended in one write,
   * skipping any whose id is already in the log, then the cards replayed and their fields
   * rewritten. `isDuplicate` may refuse others (the same rating under another id).
   */
  importEvents(
    events: readonly NewEvent[],
    options: { root: string; writable: boolean; isDuplicate?: (event: NewEvent) => boolean },
  ): { added: number; forgetsAdded: number; duplicates: number; rewritten: number } {
    const writes = noteWrites(options);
    const { added, forgetsAdded, duplicates, changed } = this.transaction(() => {
      this.catchUp();
      const lines: ReviewEvent[] = [];
      let duplicates = 0;
      let n = this.events.nextN(this.device);
      const seeded = new Set<string>();
      for (const event of events) {
        if (this.events.hasEvent(event.id) || options.isDuplicate?.(event)) {
          duplicates++;
          continue;
        }
        const current = seeded.has(event.card) || this.events.hasEvents(event.card) ? null : this.fsrs.row(event.card);
        const before = current && event.startsNew ? asNewCard(current, event.at) : current;
        seeded.add(event.card);
        const line = this.deviceLog.lineOf(event, n++, before ? seedOf(before) : undefined);
        this.events.insert(eventRow(line));
        this.events.markPending(event.card);
        lines.push(line);
      }
      this.deviceLog.append(lines);
      const changed = this.replayPending();
      if (writes.mode === 'deferred') deferFields(this.events, changed);
      return { added: lines.length, forgetsAdded: lines.filter((line) => line.kind === 'forget').length, duplicates, changed };
    });
    return { added, forgetsAdded, duplicates, rewritten: this.finishFields(options.root, writes, changed) };
  }

  /**
   * Replays the cards waiting for it that this database knows (after a scan added cards, say).
   * `fresh` holds, per card read just now, all its events when it had none before (else null).
   */
  replayPending(fresh?: ReadonlyMap<string, EventRow[] | null>): string[] {
    const changed: string[] = [];
    // Read in one pass (all events at once would be read again per card otherwise), then written;
    // after a first read of the logs, the cards that had no events take them as read.
    const groups = fresh !== undefined && [...fresh.values()].some((events) => events !== null) ? this.pendingGroups(fresh) : [...this.events.pendingEventsByCard()];
    this.events.clearPendingKnown();
    const rows: Array<[string, FsrsColumns]> = [];
    const replayAll = (first: boolean) => {
      for (const [cardId, events] of groups) {
        const row = this.replayEvents(cardId, events, first);
        if (row !== null) rows.push([cardId, row]);
      }
    };
    if (this.events.historyIsEmpty()) this.events.writeFirstHistory(groups.reduce((count, [, events]) => count + events.length, 0), () => replayAll(true));
    else replayAll(false);
    // Written together once every card is replayed: an update of the fsrs table made between one
    // card's history inserts and the next's costs three times as much (5,000 cards of 20 ratings:
    // 0.2 s of updates, against 0.07 s in a row). No card's replay reads another's row.
    for (const [cardId, row] of rows) {
      this.fsrs.writeRow(cardId, row);
      changed.push(cardId);
    }
    return changed;
  }

  /**
   * Migration of a database that predates the log files: its ratings and actions are written
   * out once as this device's log, oldest first, each card's first one carrying the row it
   * started from. Nothing else changes: the rows already are what the log replays to.
   */
  exportLegacy(): number {
    return this.transaction(() => {
      if (this.db.prepare(`SELECT 1 FROM meta WHERE key = ?`).get(LOG_EXPORTED_KEY) !== undefined) return 0;
      this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(LOG_EXPORTED_KEY, String(Date.now()));
      const history = this.events.legacyHistory();
      if (history.length === 0) return 0;
      const seen = new Set<string>();
      let n = this.events.nextN(this.device);
      const lines: ReviewEvent[] = [];
      for (const row of history) {
        const first = !seen.has(row.card_id) && !this.events.hasEvents(row.card_id);
        seen.add(row.card_id);
        const line: ReviewEvent = {
          id: row.uuid,
          device: this.device,
          n: n++,
          card: row.card_id,
          at: row.reviewed_at,
          kind: row.source === 0 ? 'rate' : (row.action as ReviewEvent['kind']),
          day: reviewDayLabel(row.reviewed_at, this.scheduler.settings.dayStartsAt),
          ...(row.source === 0 ? { rating: row.rating, duration: row.duration_ms } : {}),
          // A legacy forget that reset the counts left reps 0 from a card that had some.
          ...(row.action === 'forget' && resetCounts(row.state_before, row.uuid, this.db) ? { reset: true } : {}),
          ...(first ? { from: seedOf(JSON.parse(row.state_before) as FsrsColumns) } : {}),
        };
        if (this.events.insert(eventRow(line))) lines.push(line);
      }
      this.deviceLog.append(lines);
      return lines.length;
    });
  }

  /**
   * Every pending card this database knows that has events, in card order, with its events in
   * replay order (as pendingEventsByCard gives them): those in `fresh` sorted as kept, the others read.
   */
  private pendingGroups(fresh: ReadonlyMap<string, EventRow[] | null>): Array<[string, EventRow[]]> {
    const groups: Array<[string, EventRow[]]> = [];
    for (const cardId of this.events.pendingKnownCards()) {
      const kept = fresh.get(cardId);
      const events = kept ? [...kept].sort(compareEventRows) : this.events.forCard(cardId);
      if (events.length > 0) groups.push([cardId, events]);
    }
    return groups;
  }

  /** One file's lines appended since the last read, as rows; a line that is no event goes to `problems`. */
  private parseFile(name: string, problems: string[]): { rows: EventRow[]; offset: number } {
    const result = readLogFrom(join(this.folder, name), this.events.offset(name));
    const rows: EventRow[] = [];
    for (const line of result.lines) {
      if ('error' in line.event) problems.push(`${REVIEW_LOG_FOLDER}/${name} at byte ${line.byte}: ${line.event.error}; line skipped`);
      else rows.push(eventRow(line.event));
    }
    return { rows, offset: result.offset };
  }

  /**
   * The read into a database with no events yet (a first open, a clone's): every file parsed,
   * then stored at once in the table's own order, each card's events kept in `fresh`.
   */
  private loadFiles(names: readonly string[], problems: string[], fresh: Map<string, EventRow[] | null>): number {
    const ids = new Set<string>();
    const rows: EventRow[] = [];
    for (const name of names) {
      const parsed = this.parseFile(name, problems);
      // Of two events with one id, the first read is kept, as insertAll keeps it.
      for (const row of parsed.rows) {
        if (ids.has(row.id)) continue;
        ids.add(row.id);
        rows.push(row);
      }
      this.events.setOffset(name, parsed.offset);
    }
    rows.sort(compareStoredEventRows);
    this.events.load(rows);
    for (const row of rows) {
      const group = fresh.get(row.card_id);
      if (group) {
        group.push(row);
        continue;
      }
      fresh.set(row.card_id, [row]);
      this.events.markPending(row.card_id);
    }
    return rows.length;
  }

  /** Reads one file's new lines into the database; returns how many events were new. */
  private readFile(name: string, problems: string[], fresh?: Map<string, EventRow[] | null>): number {
    const { rows, offset } = this.parseFile(name, problems);
    // Asked before this file's events are stored: whether each card had events before this read.
    if (fresh !== undefined) for (const { card_id: card } of rows) if (!fresh.has(card)) fresh.set(card, this.events.hasEvents(card) ? null : []);
    const stored = this.events.insertAll(rows);
    const touched = new Set<string>();
    for (const row of stored) {
      touched.add(row.card_id);
      fresh?.get(row.card_id)?.push(row);
    }
    for (const card of touched) this.events.markPending(card);
    this.events.setOffset(name, offset);
    return stored.length;
  }

  /** Replays one card from its events; true when its row changed (an event logged out of order: DeviceLog.record). */
  replay(cardId: string): boolean {
    this.events.donePending(cardId);
    const row = this.replayEvents(cardId, this.events.forCard(cardId));
    if (row !== null) this.fsrs.writeRow(cardId, row);
    return row !== null;
  }

  /** Rewrites one card's history from its events; its new row when that changed (the caller writes it), else null. */
  private replayEvents(cardId: string, events: EventRow[], firstHistory = false): FsrsColumns | null {
    const current = this.fsrs.row(cardId);
    if (!current) return null;
    // Events that carry no seed (kb always writes one; a log written by hand may not) start from
    // where the card's last replay started, not from the row it left, which holds them already.
    const start = firstHistory || events.some((event) => event.seed !== null) ? current : this.events.historyStart(cardId);
    const { row, entries } = replayCard(this.scheduler, cardId, events, start === null ? current : seedOf(start));
    this.events.rewriteHistory(cardId, entries, { first: firstHistory });
    return sameColumns(current, row) ? null : row;
  }

  /** Cards whose notes a write-back left alone while git's operation held them: written at the first open after it. */
  deferFields(cardIds: readonly string[]): void {
    deferFields(this.events, cardIds);
  }

  /**
   * Writes the fields of the `changed` cards, and of those that waited for a git operation to
   * end, when notes may be written now; those written no longer wait.
   */
  private finishFields(root: string, writes: NoteWrites, changed: readonly string[]): number {
    if (writes.mode !== 'now') return 0;
    const waiting = deferredFields(this.events);
    if (waiting.length === 0 && changed.length === 0) return 0;
    const { rewritten, moved } = this.writeFields(root, [...new Set([...waiting, ...changed])]);
    // A note no longer where the database has it (a pull that brought its move with another
    // device's rating: kb sync said "review fields already up to date" and pushed the note with
    // the fields it had) waits for the scan that finds it: kb opens with this replay, then
    // scans, and the replay after a scan that moved cards writes what waits. A card the scan
    // removes is no longer a live note, and stops waiting then.
    const settled = waiting.filter((id) => !moved.includes(id));
    // Only those read here: another kb may have added some meanwhile.
    if (settled.length > 0 || moved.length > 0) {
      this.db.transaction(() => {
        if (settled.length > 0) settleDeferred(this.events, settled);
        deferFields(this.events, moved);
      }).immediate();
    }
    return rewritten;
  }

  /** After a merge the log is the truth: a replayed note's four review fields are rewritten from its state. */
  private writeFields(root: string, cardIds: readonly string[]): { rewritten: number; moved: string[] } {
    const cards = cardQueries(this.db);
    const files = fileQueries(this.db);
    const prepares: PreparedWriteback[] = [];
    const moved: string[] = [];
    for (const cardId of cardIds) {
      // A clone's first replay changes every card: most are cards in a deck file, with no fields to write.
      if (!cards.isLiveNote(cardId)) continue;
      const card = cards.find(cardId);
      if (!card) continue;
      const row = this.fsrs.row(cardId);
      if (!row) continue;
      const state = stateFromColumns(row);
      const fields = reviewFields(state, this.scheduler.weights, this.scheduler.settings.dayStartsAt);
      const prepared = prepareWriteback(root, card.path, cardId, fields, this.idKey);
      if ('status' in prepared && prepared.status === 'refused' && prepared.moved) moved.push(cardId);
      if (!('restore' in prepared)) continue;
      // A card the log leaves unreviewed (its rating taken back) whose note has no review fields:
      // the note is as it was before the rating; writing them gave an adopted vault's untouched
      // note four new lines (review_count: 0) in every clone that replayed the log.
      if (state.reps === 0 && state.lastReview === null && Object.keys(reviewFieldValues(card.path, prepared.note.raw) ?? {}).length === 0) continue;
      prepares.push(prepared);
    }
    // Written as a batch, made durable together (one fsync per note kept an import of 5,000
    // notes' reviews waiting on the disk for more than half its time); on disk when this returns.
    let rewritten = 0;
    for (const result of commitWritebacks(root, prepares)) {
      if (result.status !== 'written') continue;
      rewritten++;
      files.followRewrite(result.rewrite.path, result.rewrite.before, result.rewrite.after);
    }
    return { rewritten, moved };
  }
}

function resetCounts(stateBefore: string, uuid: string, db: KbDatabase): boolean {
  const before = JSON.parse(stateBefore) as FsrsColumns;
  const after = db.prepare<[string], { state_after: string }>('SELECT state_after FROM card_actions WHERE uuid = ?').get(uuid);
  if (!after) return false;
  const row = JSON.parse(after.state_after) as FsrsColumns;
  return row.reps === 0 && row.lapses === 0 && (before.reps !== 0 || before.lapses !== 0);
}

/** `row` as the new card it was before its first review at `at`: its flags kept, its history none. */
function asNewCard(row: FsrsColumns, at: number): FsrsColumns {
  return { ...columnsFromState(newCardState(at), { suspended: row.suspended === 1, buriedUntil: row.buried_until }), leech: 0 };
}
