// Reviewing against a knowledge base: today's queue, rating, undo, bury, suspend.
// The TUI (kb review) and the scriptable commands (kb due, kb rate, kb undo) share it, so
// a rating means the same thing whichever way it was given:
//   1. the note's new frontmatter is computed (read, not yet written);
//   2. one SQLite transaction writes the card's FSRS row and its review-log row
//      (uuid, grade, time on card, state before and after, device id);
//   3. the note file is written back atomically, holding SQLite's write lock again, from
//      the card's row as it is then (writeBack: another kb may have rated it since 2).
// A kill between 2 and 3 leaves the rating stored and the file as it was (doctor --fix
// mends the frontmatter); a kill before 2 loses only that rating.
import { withLabFigures } from '../../kb/calc-figures.ts';
import { join } from 'node:path';
import { stampOf, statStamp } from './card-file-stamp.ts';
import { randomUUID } from 'node:crypto';
import { cardActionQueries, type CardAction, type CardActionQueries } from '../../store/card-action-log.ts';
import { cardQueries, type CardRow } from '../../store/card-rows.ts';
import { deviceId, type KbDatabase } from '../../store/db.ts';
import { fileQueries, type FileQueries } from '../../store/file-stamps.ts';
import { sameFsrsState, stateFromColumns, type FsrsColumns } from '../../model/fsrs-state.ts';
import { reviewQueries, type CandidateRow, type CardFilter, type ReviewQueries } from '../../store/review-queries.ts';
import { fsrsQueries, ratingQueries, type FsrsQueries, type RatingQueries } from '../../store/review-writes.ts';
import { commitWriteback, prepareWriteback, restoreNote, type FileRestore, type WritebackResult } from '../../kb/writeback.ts';
import { reviewFields } from '../../srs/review-fields.ts';
import { applyAction } from '../../srs/card-action-rules.ts';
import { rateRow } from '../../srs/replay.ts';
import { ReviewLog, reviewLogFolder } from '../review-log/review-log.ts';
import type { NewEvent } from '../../kb/review-log/device-log.ts';
import { deferredReason, noteWrites } from '../review-log/deferred-fields.ts';
import { IMPORTED_EVENT_PREFIX } from '../../srs/imported-copies.ts';
import { localMinuteLabel, nextReviewDayStart, reviewDayLabel, reviewDayStart } from '../../srs/study-day.ts';
import type { EventKey } from '../../store/review-events.ts';
import type { LeechAction } from '../../srs/leech.ts';
import { newCardReader, type NewCardReader } from '../../srs/new-card-order.ts';
import { hashText } from '../../store/shuffle-key.ts';
import { buildQueue, queueSizes, type DueQueue, type QueueCard, type QueueLimits } from '../../srs/queue.ts';
import { FsrsScheduler, type Preview } from '../../srs/fsrs.ts';
import { LEARN_AHEAD_MS, PAGE_SIZE, ReviewSession, type CardCursor, type SessionQueue } from '../../srs/session-queue.ts';
import { recordedAnswerMs, type ReviewSettings } from '../../srs/review-settings.ts';
import type { CardState, FsrsState, Grade } from '../../model/fsrs-state.ts';

export interface ReviewTarget {
  root: string;
  /** Where the review log files are (default: reviewLogFolder); null: no log (a database in memory). */
  reviewLogFolder?: string | null;
  /** Whether notes may be written back (false for the bundled knowledge base). */
  writable: boolean;
  db: KbDatabase;
  /** With kb.json's idKey, where a note's id is (default id). */
  config: ReviewSettings & { idKey?: string };
}

export interface QueueRequest extends CardFilter {
  limit?: number | null;
}

/** Today's queue counted (ReviewService.dueCounts), and the cards that fall due tomorrow. */
export interface DueCounts {
  learning: number;
  review: number;
  new: number;
  later: number;
  tomorrow: number;
}

/** A card with its content and current schedule: what the screen shows. */
export interface ReviewCard extends CardRow {
  schedule: FsrsState;
  suspended: boolean;
  buriedUntil: number | null;
}

export interface RatingOutcome {
  uuid: string;
  cardId: string;
  grade: Grade;
  /** When the rating is stored: `now`, or the card's last review where that is later (srs/replay.ts rateRow). */
  at: number;
  /** The card's row before the rating (read in the rating's transaction). */
  beforeRow: FsrsColumns;
  before: FsrsState;
  after: FsrsState;
  /** The card's row after the rating, flags included (a leech suspended by it: suspended). */
  afterRow: FsrsColumns;
  /** null when the card is not a note of a writable knowledge base. */
  writeback: WritebackResult | null;
  /** This rating made the card a leech: it was tagged, or tagged and suspended (kb.json leechAction). */
  leech: LeechAction | null;
}

export interface ActionOutcome {
  /** null when the action changed nothing (the card was already suspended, not buried, ...): nothing is logged. */
  uuid: string | null;
  cardId: string;
  action: CardAction;
  before: FsrsColumns;
  after: FsrsColumns;
  /** forget of a note of a writable knowledge base: its review fields written back; else null. */
  writeback: WritebackResult | null;
}

export interface UndoOutcome {
  uuid: string;
  cardId: string;
  /** What was taken back: a rating, or an action on the card. */
  action: 'rate' | CardAction;
  /** The rating taken back; null for an action. */
  grade: Grade | null;
  /** The state the card is back in. */
  restored: FsrsState;
  /** The row it is back in, flags included (an undone unsuspend: suspended again). */
  restoredRow: FsrsColumns;
  file: WritebackResult | null;
}

/** review_log.state_before: the fsrs row, plus how to restore the note when write-back changed it. */
type StateBefore = FsrsColumns & { file?: FileRestore };

/** The schedule a screen showed a card with: a rating refuses a card that no longer has it. */
export type ShownSchedule = Pick<ReviewCard, 'schedule' | 'suspended' | 'buriedUntil'>;

/**
 * What a refused stale rating says (the review screen shows it as it is), naming what the other
 * session did where the card's row tells: it said "rated there?" of a card suspended there.
 */
export function changedSinceShown(row: Pick<FsrsColumns, 'suspended' | 'buried_until'>, now: number): string {
  const what = row.suspended === 1 ? 'suspended' : row.buried_until !== null && row.buried_until > now ? 'buried' : 'rated or changed';
  return `${what} in another kb session since shown: not rated here`;
}

/**
 * The card's row changed since the screen showed it: another kb (a second terminal's kb
 * review, a kb rate, a sync) rated or changed it. Rating it again from the stale screen would
 * answer a question the learner saw in another state (a new card rated twice in two seconds
 * would graduate with no spacing at all), so the rating is refused; `row` is the card now.
 */
export class CardChangedError extends Error {
  readonly row: FsrsColumns;
  constructor(cardId: string, row: FsrsColumns, now: number) {
    super(`card ${cardId}: ${changedSinceShown(row, now)}`);
    this.name = 'CardChangedError';
    this.row = row;
  }
}

export class UndoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndoError';
  }
}

/** The action a session would undo was already taken back by another kb (kb undo in a shell). */
export class AlreadyUndoneError extends UndoError {
  constructor() {
    super('already undone in another kb (kb undo): the card is back as it was');
    this.name = 'AlreadyUndoneError';
  }
}

export class ReviewService {
  readonly scheduler: FsrsScheduler;
  private readonly target: ReviewTarget;
  private readonly reviews: ReviewQueries;
  private readonly fsrs: FsrsQueries;
  private readonly ratings: RatingQueries;
  private readonly cards: ReturnType<typeof cardQueries>;
  private readonly files: FileQueries;
  private readonly actions: CardActionQueries;
  private device: string | null = null;
  private readonly log: ReviewLog | null;

  constructor(target: ReviewTarget) {
    this.target = target;
    this.scheduler = new FsrsScheduler(target.config);
    this.reviews = reviewQueries(target.db);
    this.fsrs = fsrsQueries(target.db);
    this.ratings = ratingQueries(target.db);
    this.cards = cardQueries(target.db);
    this.files = fileQueries(target.db);
    this.actions = cardActionQueries(target.db);
    const folder = target.reviewLogFolder === undefined ? reviewLogFolder(target) : target.reviewLogFolder;
    this.log = folder === null ? null : new ReviewLog(target.db, folder, this.scheduler, target.config.idKey);
  }

  get settings(): ReviewSettings {
    return this.target.config;
  }

  dayStart(now: number): number {
    return reviewDayStart(now, this.settings.dayStartsAt).getTime();
  }

  dayEnd(now: number): number {
    return nextReviewDayStart(now, this.settings.dayStartsAt).getTime();
  }

  /** Today's queue at `now`, filtered and limited: the whole of it (kb due lists it all). */
  queue(request: QueueRequest, now: number): DueQueue {
    const limits = this.limits(request, now);
    const dayEnd = this.dayEnd(now);
    const rows = [
      ...this.reviews.candidates(request, now, dayEnd, Math.max(0, limits.reviewsPerDay - limits.reviewsDoneToday)),
      ...this.newCards(request, now, false)(Math.max(0, limits.newPerDay - limits.newDoneToday)),
    ];
    // A row's index is its newOrder: new cards keep the order they were read in.
    return buildQueue(rows.map(queueCardFromRow), now, dayEnd, limits);
  }

  /**
   * Today's session at `now`: the same queue as queue(), but reviews and new cards are
   * counted in SQL and read a page at a time as the session reaches them, so opening a
   * backlog of thousands costs what opening a day of twenty does.
   */
  session(request: QueueRequest, now: number, pageSize = PAGE_SIZE): ReviewSession {
    const { dayEnd, learning, later, eligible, sizes } = this.today(request, now, this.limits(request, now));
    // Walking the cards in order finds a page of new cards quickly when they are dense; when
    // they are few (a mature collection), sorting just them is quicker.
    const newCardsAreMany = eligible.new * 8 >= eligible.cards;
    const queue: SessionQueue = {
      learning: learning.slice(0, sizes.learning),
      later: later.slice(0, sizes.later),
      review: storeCursor(sizes.review, (after, count) => this.reviews.reviewPage(request, now, dayEnd, after, count), eligible.review),
      new: readerCursor(sizes.new, this.newCards(request, now, newCardsAreMany), eligible.new),
    };
    return new ReviewSession(queue, dayEnd, LEARN_AHEAD_MS, pageSize);
  }

  /** Today's learning cards (due now, and later today), how many reviews and new cards are eligible, and the queue's sizes under `limits`. */
  private today(filter: CardFilter, now: number, limits: QueueLimits) {
    const dayEnd = this.dayEnd(now);
    const learning: QueueCard[] = [];
    const later: QueueCard[] = [];
    for (const row of this.reviews.learningCandidates(filter, now, dayEnd)) (row.due <= now ? learning : later).push(queueCardFromRow(row));
    const eligible = this.reviews.eligibleCounts(filter, now, dayEnd);
    const sizes = queueSizes({ learning: learning.length, review: eligible.review, new: eligible.new, later: later.length }, limits);
    return { dayEnd, learning, later, eligible, sizes };
  }

  /** Today's new cards in the configured order (newCardOrder), read as they are needed. */
  private newCards(request: QueueRequest, now: number, walkCards: boolean): NewCardReader {
    const seed = hashText(reviewDayLabel(now, this.settings.dayStartsAt));
    return newCardReader(this.settings.newCardOrder, {
      // A note never reviewed whose frontmatter puts its next_review later waits for that day.
      filePage: (after, count, deck) => this.reviews.newPage(request, now, this.dayEnd(now), after, count, walkCards, deck),
      decks: () => this.reviews.decks(request),
      shuffledPage: (after, count) => this.reviews.shuffledNewPage(request, now, this.dayEnd(now), seed, after, count),
    });
  }

  private limits(request: QueueRequest, now: number): QueueLimits {
    const done = this.reviews.answeredSince(this.dayStart(now));
    return {
      newPerDay: this.settings.newPerDay,
      reviewsPerDay: this.settings.reviewsPerDay,
      newDoneToday: done.newCards,
      reviewsDoneToday: done.reviews,
      limit: request.limit ?? null,
    };
  }

  card(cardId: string): ReviewCard | null {
    const card = this.cards.find(cardId);
    const row = this.fsrs.row(cardId);
    if (!card || !row) return null;
    // A calc card asks with the learner's own lab figures where it takes any.
    const calc = withLabFigures(card.calc, this.target.db, Date.now(), this.target.root);
    return { ...card, calc, schedule: stateFromColumns(row), suspended: row.suspended === 1, buriedUntil: row.buried_until };
  }

  /** The stamp (card-file-stamp.ts) kb scan last recorded of a file, or null when it has none (never scanned cleanly). */
  recordedStamp(path: string): string | null {
    const row = this.files.stamp(path);
    return row === undefined ? null : stampOf(row.size, row.mtimeMs);
  }

  /** The stamp of a file of the knowledge base as it is on disk now; null when it is gone. */
  currentStamp(path: string): string | null {
    return statStamp(join(this.target.root, path));
  }

  preview(card: ReviewCard, now: number): Preview[] {
    return this.scheduler.preview(card.id, card.schedule, now);
  }

  /**
   * Rates a card: the card's row is read, the new state computed and both written with the
   * log row in one IMMEDIATE transaction (SQLite's write lock taken first), so two kb
   * processes rating one card at once apply one rating after the other; then the note's
   * write-back.
   */
  /** `shown`: the schedule the card was shown with; the rating is refused (CardChangedError) when its row no longer has it. */
  rate(cardId: string, grade: Grade, now: number, durationMs = 0, shown?: ShownSchedule): RatingOutcome {
    const card = this.requireCard(cardId);
    const uuid = randomUUID();
    const { at, beforeRow, afterRow, before, after, prepared, leech } = this.transaction(() => {
      this.log?.catchUp();
      const beforeRow = this.requireRow(cardId);
      if (shown && !showsRow(shown, beforeRow)) throw new CardChangedError(cardId, beforeRow, now);
      const { at, before, after, afterRow, leech } = rateRow(this.scheduler, cardId, beforeRow, grade, now);
      const prepared = this.writesBack(card)
        ? this.prepareFields(card, after)
        : null;
      const restore = prepared && 'restore' in prepared ? prepared.restore : undefined;
      const stateBefore: StateBefore = restore ? { ...beforeRow, file: restore } : beforeRow;
      this.ratings.recordRating(
        { uuid, card_id: cardId, rating: grade, reviewed_at: at, duration_ms: recordedAnswerMs(durationMs), device_id: this.deviceId() },
        stateBefore,
        afterRow,
      );
      this.logEvent({ id: uuid, card: cardId, at, kind: 'rate', rating: grade, duration: recordedAnswerMs(durationMs) }, beforeRow);
      return { at, beforeRow, afterRow, before, after, prepared, leech };
    });
    const writeback = prepared === null ? null : this.writeBack(card, afterRow, () => this.commitPrepared(prepared));
    return { uuid, cardId, grade, at, beforeRow, before, after, afterRow, writeback, leech };
  }

  /**
   * Takes back the latest rating or card action, whichever came last. A rating is taken
   * back exactly: the card's row as it was, the log row deleted, and the note's old bytes
   * back. The row comes from the log's state_before rather than ts-fsrs's rollback(), which
   * rebuilds `due` from the review time and so is not exact. An action (suspend, bury,
   * forget, ...) likewise puts back the row it changed. Refused when the card changed
   * since, or when `expectedUuid` is given and is not the latest. Found and taken back in
   * one IMMEDIATE transaction, so two kb undo at once take back two.
   */
  undo(expectedUuid?: string): UndoOutcome | null {
    const taken = this.transaction(() => {
      this.log?.catchUp();
      // Taken back elsewhere (kb undo in a shell): "undo that one first" would send the user to an older one.
      if (expectedUuid !== undefined && !this.ratings.stands(expectedUuid)) throw new AlreadyUndoneError();
      // Imported history (kb import --revlog) is not a rating made here: undo takes back the
      // latest one that is (an import's row, last by rowid, blocked every undo: found as a user).
      const rating = this.ratings.latestLog(this.deviceId(), IMPORTED_EVENT_PREFIX);
      const action = this.actions.latest(this.deviceId());
      // An action logged while `rating` was already the latest rating came after it.
      const entry = action !== null && (rating === null || action.after_rating === rating.uuid) ? action : rating;
      if (entry === null) return null;
      if (expectedUuid !== undefined && entry.uuid !== expectedUuid) {
        throw new UndoError('a later rating or action (from another kb) stands in the log; undo that one first with kb undo');
      }
      const { file, ...beforeRow } = JSON.parse(entry.state_before) as StateBefore;
      const afterRow = JSON.parse(entry.state_after) as FsrsColumns;
      const current = this.fsrs.row(entry.card_id);
      const what = 'action' in entry ? `its ${entry.action}` : 'its last rating';
      if (current && !sameRow(current, afterRow, 'action' in entry)) {
        throw new UndoError(`card ${entry.card_id} changed after ${what}${changedBy(this.log?.latestEvent(entry.card_id) ?? null, entry.uuid, this.deviceId())}; nothing was undone`);
      }
      if ('action' in entry) {
        this.fsrs.writeRow(entry.card_id, beforeRow);
        this.actions.remove(entry.uuid);
      } else {
        this.ratings.revertRating(entry.uuid, entry.card_id, beforeRow);
      }
      // Undo is an event too, so it merges: every device's replay skips the event taken back.
      this.logEvent({ id: randomUUID(), card: entry.card_id, at: Date.now(), kind: 'undo', target: entry.uuid }, beforeRow);
      return { entry, file, beforeRow };
    });
    if (taken === null) return null;
    const { entry, file, beforeRow } = taken;
    const card = this.cards.find(entry.card_id);
    let fileResult: WritebackResult | null = null;
    // A rating whose patch is gone (a replay of merged or imported history changed the state it
    // started from) has its note's fields written from the card as it is again: the note said
    // the rating stood (found as a user, undoing after kb import --revlog).
    if (card && this.writesBack(card) && (file || !('action' in entry))) {
      fileResult =
        this.heldByGit(card) ??
        this.writeBack(card, beforeRow, () => {
          const restored = file ? restoreNote(this.target.root, file) : null;
          // Edited since the rating (e in kb review, say): the edit stays, and the four review fields
          // are written from the card as it is again (null), rather than left saying the rating stood.
          return restored !== null && restored.status === 'refused' && restored.editedSince ? null : restored;
        });
    }
    const what = 'action' in entry ? { action: entry.action, grade: null } : { action: 'rate' as const, grade: entry.rating as Grade };
    return { uuid: entry.uuid, cardId: entry.card_id, ...what, restored: stateFromColumns(beforeRow), restoredRow: beforeRow, file: fileResult };
  }

  /**
   * Suspends, unsuspends, buries, unburies or forgets a card: its row changed and the action
   * logged in one IMMEDIATE transaction (kb undo takes it back). An action that would change
   * nothing is not logged.
   */
  act(cardId: string, action: CardAction, now: number, options: { resetCounts?: boolean } = {}): ActionOutcome {
    const card = this.requireCard(cardId);
    const { outcome, prepared } = this.transaction(() => {
      this.log?.catchUp();
      const before = this.requireRow(cardId);
      const after = applyAction(action, before, { now, dayEnd: this.dayEnd(now), resetCounts: options.resetCounts });
      if (after === null) return { outcome: { uuid: null, cardId, action, before, after: before, writeback: null }, prepared: null };
      // Forget changes what a note's review fields say: written back as a rating is, and undone with it.
      const prepared =
        action === 'forget' && this.writesBack(card)
          ? this.prepareFields(card, stateFromColumns(after))
          : null;
      const restore = prepared && 'restore' in prepared ? prepared.restore : undefined;
      const stateBefore: StateBefore = restore ? { ...before, file: restore } : before;
      const uuid = randomUUID();
      this.fsrs.writeRow(cardId, after);
      this.actions.record({ uuid, card_id: cardId, action, acted_at: now, device_id: this.deviceId() }, stateBefore, after);
      this.logEvent({ id: uuid, card: cardId, at: now, kind: action, reset: action === 'forget' && options.resetCounts === true }, before);
      return { outcome: { uuid, cardId, action, before, after, writeback: null }, prepared };
    });
    const writeback = prepared === null ? null : this.writeBack(card, outcome.after, () => this.commitPrepared(prepared));
    return { ...outcome, writeback };
  }

  /** Cards (not new) due by the end of the next review day, today's included, of those `filter` picks. */
  dueByEndOfTomorrow(now: number, filter: CardFilter = {}): number {
    return this.reviews.dueCountBefore(nextReviewDayStart(this.dayEnd(now), this.settings.dayStartsAt).getTime(), filter);
  }

  /**
   * What the database has due at `now` of the cards `filter` picks, as kb due counts it with
   * that filter (today's limits, not --limit: that caps one run, not what is due): learning
   * cards due now, reviews, new cards, and learning cards whose next step comes later today (a
   * Good on a new card: in ten minutes). `tomorrow`: cards (not new) that fall due by the end
   * of the next study day and are not in today's queue (due tomorrow, or left out of today's:
   * buried, over reviewsPerDay). A review's end summary, read at quit rather than from the
   * session's memory: another kb may have rated or undone cards meanwhile.
   */
  dueCounts(filter: CardFilter, now: number): DueCounts {
    const today = this.today(filter, now, { ...this.limits(filter, now), limit: null }).sizes;
    return { ...today, tomorrow: Math.max(0, this.dueByEndOfTomorrow(now, filter) - today.learning - today.review - today.later) };
  }

  /** Whether this rating or card action still stands: false once an undo took it back (here or in another kb). */
  stands(uuid: string): boolean {
    return this.ratings.stands(uuid);
  }

  /**
   * A number that changes when another kb process (another terminal's kb review, a kb rate or
   * undo, a sync) commits to the database, and only then: what a session compares at each
   * redraw before it asks which of its cards changed (changedQueued). No table is read.
   */
  dataVersion(): number {
    return this.reviews.dataVersion();
  }

  /**
   * Those of `queued` (cards as a session queued them) whose row now has another state, due,
   * suspension or burial, each with its row as it is: one query. A card gone from the
   * database is not among them (the session skips it when it meets it).
   */
  changedQueued(queued: readonly QueueCard[]): Array<{ cardId: string; row: FsrsColumns }> {
    const entries = queued.map((card) => ({ id: card.id, state: card.state, due: card.due, suspended: card.suspended ? (1 as const) : (0 as const), buried_until: card.buriedUntil }));
    return this.reviews.changedEntries(entries).map(({ card_id, ...row }) => ({ cardId: card_id, row }));
  }

  /** The queue entry for a card in its current state (for putting it back after undo). */
  queueCard(cardId: string): QueueCard {
    return queueCardOf(cardId, this.requireRow(cardId));
  }

  /**
   * Writes a note's review fields once the change to its card is stored, holding SQLite's write
   * lock again. Every rating, undo and action takes that lock, so no other kb changes the card,
   * or writes its note back, between the row read here and the file written: whichever kb writes
   * last, the note says what the card's last row says. (Written without the lock, two kb rate at
   * once left the note with the first rating's fields and warned of an outside edit that was the
   * other kb's write-back; a kb undo beside a kb rate left the undone state.)
   *
   * `exact` writes what this change computed in its own transaction, from the row `stored`
   * (the restore patch the log keeps for undo is for those bytes); it runs while the card's row
   * is still `stored`. When the row changed since (another kb rated or undid the card), when the
   * note changed after it was read there (another kb's write-back, an edit), or when `exact`
   * returns null, the fields are written from the row as it is now, into the note as it is now.
   */
  private writeBack(card: CardRow, stored: FsrsColumns, exact: () => WritebackResult | null): WritebackResult {
    const write = (locked: boolean): WritebackResult => {
      const row = locked ? this.fsrs.row(card.id) : stored;
      let result = row === null || sameFsrsState(stateFromColumns(row), stateFromColumns(stored)) ? exact() : null;
      if (locked && row !== null && (result === null || (result.status === 'refused' && result.changed))) {
        result = this.writeFields(card, stateFromColumns(row));
      }
      result ??= this.writeFields(card, stateFromColumns(stored));
      // A note moved since the last scan (git mv, a pull): its fields wait for the scan that
      // finds it, which writes them from the card's row then (kb sync pushed the moved note
      // with the fields it had before this rating).
      if (result.status === 'refused' && result.moved) this.log?.deferFields([card.id]);
      this.followRewrite(result);
      return result;
    };
    try {
      return this.target.db.transaction(() => write(true)).immediate();
    } catch (error) {
      // Another process held the database past the busy timeout: the change is stored all the
      // same, so its note is written without the lock, as it was computed (the write still
      // refuses to overwrite a file that changed since it was read).
      if (!isBusy(error)) throw error;
      return write(false);
    }
  }

  private commitPrepared(prepared: ReturnType<typeof prepareWriteback>): WritebackResult {
    return 'restore' in prepared ? commitWriteback(this.target.root, prepared) : prepared;
  }

  /** The note's four review fields written as `state` says them. */
  private writeFields(card: CardRow, state: FsrsState): WritebackResult {
    return this.commitPrepared(this.prepareFields(card, state));
  }

  /**
   * Records the rewritten file's new stamp so the next scan need not parse it again. Without
   * the write lock (writeBack's busy case), when another process holds the database past the
   * busy timeout, the stamp is skipped (the next scan reads the note once more) rather than
   * failing a rating that is already stored, which a script would then retry.
   */
  private followRewrite(result: WritebackResult | null): void {
    if (!result || !('rewrite' in result)) return;
    try {
      this.files.followRewrite(result.rewrite.path, result.rewrite.before, result.rewrite.after);
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
  }

  /** The note's four review fields as `state` says them, read and computed, not yet written. */
  private prepareFields(card: CardRow, state: FsrsState): ReturnType<typeof prepareWriteback> {
    const held = this.heldByGit(card);
    if (held) return held;
    return prepareWriteback(this.target.root, card.path, card.id, reviewFields(state, this.scheduler.weights, this.settings.dayStartsAt), this.target.config.idKey);
  }

  /**
   * While git merges or rebases the knowledge base, the note is left alone (deferred-fields.ts):
   * a refused write-back saying why, and the card's fields written at the first open after it.
   */
  private heldByGit(card: CardRow): (WritebackResult & { status: 'refused' }) | null {
    const writes = noteWrites(this.target);
    if (writes.mode !== 'deferred') return null;
    this.log?.deferFields([card.id]);
    return { status: 'refused', reason: deferredReason(writes.operation), heldByGit: true };
  }

  /** One IMMEDIATE transaction; a failure also takes back the lines it appended to this device's log. */
  private transaction<T>(fn: () => T): T {
    const appends = this.log?.deviceLog.noteAppends();
    if (appends === null) return fn(); // inside a transaction of the log's already: its outer one takes the lines back
    try {
      return this.target.db.transaction(fn).immediate();
    } catch (error) {
      appends?.takeBack();
      throw error;
    } finally {
      appends?.end();
    }
  }

  /**
   * The change's event, logged in its transaction: stored and appended to this device's log
   * file (kb/review-log/device-log.ts); a card whose event does not come last in replay order
   * (another device's clock ahead, an undo) is replayed from its events.
   */
  private logEvent(event: NewEvent, before: FsrsColumns): void {
    if (this.log === null) return;
    if (this.log.deviceLog.record(event, before).replay) this.log.replay(event.card);
  }

  private writesBack(card: CardRow): boolean {
    return this.target.writable && card.kind === 'note' && !card.orphan;
  }

  private deviceId(): string {
    this.device ??= deviceId(this.target.db);
    return this.device;
  }

  private requireCard(cardId: string): CardRow {
    const card = this.cards.find(cardId);
    if (!card) throw new UnknownCardError(cardId);
    return card;
  }

  private requireRow(cardId: string): FsrsColumns {
    const row = this.fsrs.row(cardId);
    if (!row) throw new UnknownCardError(cardId);
    return row;
  }
}

/** What a screen would show of a card whose row is `row`. */
export function shownScheduleOf(row: FsrsColumns): ShownSchedule {
  return { schedule: stateFromColumns(row), suspended: row.suspended === 1, buriedUntil: row.buried_until };
}

function showsRow(shown: ShownSchedule, row: FsrsColumns): boolean {
  const current = shownScheduleOf(row);
  return sameFsrsState(shown.schedule, current.schedule) && shown.suspended === current.suspended && shown.buriedUntil === current.buriedUntil;
}

/** The queue entry of a card whose row is `row`. */
export function queueCardOf(cardId: string, row: FsrsColumns): QueueCard {
  return { id: cardId, state: row.state as CardState, due: row.due, newOrder: 0, suspended: row.suspended === 1, buriedUntil: row.buried_until };
}

export class UnknownCardError extends Error {
  constructor(cardId: string) {
    super(`no card with id ${cardId} (see kb due --json for ids)`);
    this.name = 'UnknownCardError';
  }
}

/** Whether the card's row is still what an entry left it: the FSRS state, and for an action also the flags it sets. */
function sameRow(current: FsrsColumns, after: FsrsColumns, action: boolean): boolean {
  if (!sameFsrsState(stateFromColumns(current), stateFromColumns(after))) return false;
  return !action || (current.suspended === after.suspended && current.buried_until === after.buried_until);
}

/** `newOrder`: the row's place among the candidates, which come in today's new-card order. */
function queueCardFromRow(row: CandidateRow, newOrder = 0): QueueCard {
  return { id: row.id, state: row.state, due: row.due, newOrder, suspended: row.suspended === 1, buriedUntil: row.buried_until };
}

function readerCursor(total: number, read: NewCardReader, available: number): CardCursor {
  return { total, available, next: (count) => read(count).map((row) => queueCardFromRow(row)) };
}

/** A cursor over one list in the store: each page is read after the last row of the one before. */
function storeCursor<Row extends CandidateRow>(total: number, page: (after: Row | null, count: number) => Row[], available: number): CardCursor {
  let last: Row | null = null;
  return {
    total,
    available,
    next(count) {
      const rows = page(last, count);
      last = rows.at(-1) ?? last;
      return rows.map(queueCardFromRow);
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Who changed a card after the event being undone, where the log can tell: another device's
 * event that replays after it, and, when its time is still to come, that its clock is ahead
 * (found as a user: a suspend could not be undone, and nothing said why).
 */
function changedBy(last: EventKey | null, undoing: string, device: string): string {
  if (last !== null && last.id.startsWith(IMPORTED_EVENT_PREFIX)) return ' (a review imported with kb import --revlog replays after it)';
  if (last === null || last.id === undoing || last.device === device) return '';
  const ahead = last.at > Date.now() ? ", a time still to come: that device's clock is ahead" : '';
  return ` (another device's event of ${localMinuteLabel(last.at)} replays after it${ahead})`;
}
