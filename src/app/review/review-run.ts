// One `kb review` run: the session queue, the service that stores each action, and the
// undo stack of this run (ratings, burials, suspensions), as the review screen's controller.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { refusedWritebackNote, type WritebackResult } from '../../kb/writeback.ts';
import type { CardLabs } from '../card-labs/card-labs.ts';
import type { ActionResult, AnswerOption, ReviewController, ScreenCard, ScreenNext, SessionSummary } from './screen-contract.ts';
import { intervalLabel } from '../../srs/interval-label.ts';
import type { QueueCard } from '../../srs/queue.ts';
import { AlreadyUndoneError, CardChangedError, changedSinceShown, queueCardOf, shownScheduleOf, UndoError, UnknownCardError, type QueueRequest, type ReviewCard, type ReviewService, type ShownSchedule } from './review-service.ts';
import type { ReviewSession, SessionLists } from '../../srs/session-queue.ts';
import { leechMessage } from '../../srs/leech.ts';
import { clockBehindMessage } from '../../srs/replay.ts';
import { GRADE_LABELS, GRADE_NAMES, STATE_NAMES, type Grade } from '../../model/fsrs-state.ts';
import type { Diagnostic } from '../../model/knowledge-base.ts';
import { editorInvocation, noteQuestionLine } from '../../kb/editor.ts';
import { reviewDayLabel } from '../../srs/study-day.ts';
import { recordedAnswerMs } from '../../srs/review-settings.ts';
import { calcFaces, checkTyped, dailyCalc, type CalcCheck } from './review-calc.ts';

/** What this run did, latest last: each is logged, and undo takes it back by its uuid. */
interface UndoStep {
  kind: 'rate' | 'bury' | 'suspend';
  uuid: string;
  /** The card as the session had it before. */
  card: QueueCard;
  /** A rating's answer time as recorded (capped): taken off the session's study time when undone. */
  answerMs?: number;
}

export interface ReviewRunOptions {
  /** Re-reads the knowledge base after an edit (an incremental kb scan). */
  /** Scans the knowledge base; its errors (a file with one is skipped, its cards kept as they were). */
  rescan: () => Promise<readonly Diagnostic[]>;
  /**
   * The scan kb review runs after drawing its first card, when it started from the database
   * as it stood: whether cards changed, and a line on its errors.
   */
  lateScan?: () => Promise<{ changed: boolean; problems: string | null }>;
  /** $VISUAL / $EDITOR, else vi. */
  editor: string;
  /** Whether files may be edited (not the bundled knowledge base). */
  writable: boolean;
  startedAt: number;
  /** Runs a card's lab in place and reads its latest stored result. */
  labs: CardLabs;
  /**
   * A service on kb.json as it is now, taken when today's queue is read again: null when the
   * file did not change; `kept` (a status line saying why) when it is now invalid, and the run
   * keeps the settings it has.
   */
  reloadService?: () => ReviewService | { kept: string } | null;
}

/** The status line when a run crosses into a new study day. */
export const NEW_STUDY_DAY = "new study day: today's queue loaded";

function fileMessage(result: WritebackResult | null, stored: 'rating' | 'undo'): string | null {
  if (result?.status === 'refused') return `note not updated: ${result.reason}; ${refusedWritebackNote(result, stored)}`;
  return null;
}

export class ReviewRun implements ReviewController {
  private service: ReviewService;
  private session: ReviewSession;
  private readonly request: QueueRequest;
  private readonly root: string;
  private readonly run: ReviewRunOptions;
  private readonly undoSteps: UndoStep[] = [];
  private readonly cache = new Map<string, ReviewCard>();
  /** The study day each card was last shown for: its answer is checked against that day's values. */
  private readonly shownDays = new Map<string, string>();
  /** The answer times of this run's standing ratings, each capped as the review log records it. */
  private studiedMs = 0;
  /**
   * The cards this session took as another kb changed them (changedElsewhere), each with the
   * entry it had queued before, and whether the change was an answer there. Looked at before
   * each next card: a card whose row is back to that entry (the other kb undid its rating, or
   * its bury or suspension) returns to this session's lists.
   */
  private readonly changedThere = new Map<string, { queued: QueueCard; answered: boolean }>();
  /** The scans this run starts, one after another: two at once would both write ids into one new file. */
  private scanning: Promise<unknown> = Promise.resolve();
  /**
   * Files read again (readAgain) after a change outside kb, each with its stamp then: a file the
   * scan keeps no stamp of (its ids could not be written) is not read again at every card.
   */
  private readonly readAt = new Map<string, string>();
  /**
   * Cards skipped because their file, changed outside kb, no longer parses (the scan keeps their
   * old text), with the file's stamp then: skipped in silence while the file stays so (today's
   * queue read again would bring them back, and the Done screen reads it every second).
   */
  private readonly unreadable = new Map<string, string | null>();
  /** What next() skipped of cards no file holds now (made orphans by a scan since they were queued): its status line. */
  private skippedNow: string[] = [];
  /** The card next() last gave the screen (null: it waits, or is done): followOtherSessions leaves it as shown. */
  private onScreen: string | null = null;
  /** The database's dataVersion when followOtherSessions last took in what other kb processes did. */
  private seenVersion: number;

  constructor(service: ReviewService, root: string, request: QueueRequest, options: ReviewRunOptions) {
    this.service = service;
    this.root = root;
    this.run = options;
    this.request = request;
    // Read before the queue: a commit of another kb from here on is looked at (followOtherSessions).
    this.seenVersion = service.dataVersion();
    this.session = service.session(request, options.startedAt);
  }

  async catchUp(): Promise<ActionResult & { changed: boolean }> {
    const lateScan = this.run.lateScan;
    if (!lateScan) return { changed: false, message: null };
    let scanned: { changed: boolean; problems: string | null };
    try {
      scanned = await this.serialScan(() => lateScan());
    } catch (error) {
      return { changed: false, message: `the knowledge base could not be scanned: ${(error as Error).message}` };
    }
    const { changed, problems } = scanned;
    if (changed) {
      this.cache.clear();
      // Nothing answered yet (the scan takes a moment): today's queue is built again from
      // the scanned cards. After an answer the queue stays; its cards are read afresh.
      if (this.undoSteps.length === 0 && this.session.counts().done === 0) this.replaceSession(this.service.session(this.request, this.run.startedAt));
    }
    return { changed, message: problems };
  }

  next(now: number): ScreenNext {
    this.followUndoneElsewhere();
    this.followTakenBackThere();
    const notice = this.followStudyDay(now);
    this.skippedNow = [];
    const next = this.nextOfSession(now);
    this.onScreen = next.kind === 'card' ? next.card.id : null;
    return withNotice(withNotice(next, skippedLine(this.skippedNow)), notice);
  }

  /**
   * What other kb processes did to this session's cards since it last looked, taken in so
   * that the header's counts are true at its next redraw (the screen asks counts(now) at each
   * render: each key, each card, the clock's tick every second). The header kept counting a
   * card another terminal's kb review had rated until this session reached it, and a card
   * taken back there (u) until this session read its queue again (found with kb review in
   * two terminals). It costs one pragma when no other process committed (dataVersion), and
   * else one query over the cards read so far (changedQueued): the rating path stays as it was.
   * The card on screen is left as it was shown: the screen must not lose it, and a key on it
   * finds the change as before (a rating is refused: "rated in another kb session since shown").
   */
  private followOtherSessions(now: number): void {
    const version = this.service.dataVersion();
    if (version === this.seenVersion) return;
    // This run's action on the card on screen taken back elsewhere (kb undo): left to the next
    // key, as before, and looked at again at the next redraw.
    if (!this.followUndoneElsewhere(this.onScreen)) return;
    this.followTakenBackThere(this.onScreen);
    const queued = this.session.queued().filter((card) => card.id !== this.onScreen);
    for (const { cardId, row } of this.service.changedQueued(queued)) this.changedElsewhere(cardId, shownScheduleOf(row), now);
    // The version read before the queries: a commit made meanwhile is looked at next time.
    this.seenVersion = version;
  }

  /**
   * This run's latest actions that an undo elsewhere took back (kb undo in a shell takes this
   * device's latest, which is often this run's): each leaves the undo stack and its card comes
   * back as it now is, as u here would have done. The header's counts (done, new, learning)
   * kept the answer until quit (found as a user: done 1, learning 1 after the rating was
   * undone, and the card, met again, was dropped from the session). kb undo always takes the
   * device's latest, so what it took back of this run is the top of its stack: looked at
   * before each action of this run is stacked (rate, bury, suspend) and each next card.
   * `onScreen`: a step of that card is left on the stack (the screen shows the card); returns
   * false when one was.
   */
  private followUndoneElsewhere(onScreen: string | null = null): boolean {
    for (let step = this.undoSteps.at(-1); step !== undefined && !this.service.stands(step.uuid); step = this.undoSteps.at(-1)) {
      if (step.card.id === onScreen) return false;
      this.undoSteps.pop();
      this.takenBack(step);
    }
    return true;
  }

  /**
   * The cards another kb changed and then took back (u there after rating a card this session
   * had queued, or kb undo): each returns to this session's lists as it was queued, at once,
   * as a card this session's own undo brings back does. Without this, the session kept the
   * card as the other kb had answered it (a learning step due later, or out of today's queue)
   * and met it again only when today's queue was read afresh, after every other card (found
   * as a user with kb review in two terminals: the header counted it as learning meanwhile).
   */
  private followTakenBackThere(onScreen: string | null = null): void {
    // Latest first, as undo puts cards back: each goes to the head of its list, and the session
    // met them (and found them changed) in the order of its lists.
    for (const [cardId, { queued, answered }] of [...this.changedThere].reverse()) {
      // The card on screen (met again as the other kb left it) stays as shown until a key.
      if (cardId === onScreen) continue;
      let now: QueueCard;
      try {
        now = this.service.queueCard(cardId);
      } catch (error) {
        if (!(error instanceof UnknownCardError)) throw error;
        this.changedThere.delete(cardId);
        continue;
      }
      // Still as the other kb left it, or changed again: met as it is when the session reaches it.
      if (!sameQueueEntry(now, queued)) continue;
      this.changedThere.delete(cardId);
      this.cache.delete(cardId);
      this.session.returned(queued, answered);
    }
  }

  /**
   * Today's queue read afresh: what another kb changed is in it as it is now, so the cards
   * this session took as changed there are forgotten (one undone there later would be put
   * back a second time, and counted twice under today's limit).
   */
  private replaceSession(session: ReviewSession): void {
    this.session = session;
    this.changedThere.clear();
  }

  /** The session takes back an action of this run that was undone: its card, its answer and its time. */
  private takenBack(step: UndoStep): void {
    this.cache.delete(step.card.id);
    if (step.kind !== 'rate') return this.session.restored(step.card, false);
    this.studiedMs -= step.answerMs ?? 0;
    let card: QueueCard;
    try {
      card = this.service.queueCard(step.card.id);
    } catch (error) {
      if (!(error instanceof UnknownCardError)) throw error;
      // Gone from the database since (a scan): its answer is still taken back, the card stays out.
      this.session.restored(step.card, true);
      return this.session.removed(step.card.id);
    }
    this.session.restored(card, true);
  }

  /**
   * kb.json read again (reloadService): its service taken, or, when the file is now invalid,
   * the line that says so while the run keeps its settings (a bad edit was ignored in silence,
   * while the next command refused it: found by a probe).
   */
  private rereadSettings(): string | null {
    const reread = this.run.reloadService?.() ?? null;
    if (reread === null) return null;
    if ('kept' in reread) return reread.kept;
    this.service = reread;
    return null;
  }

  /**
   * A run left open past the study day's end (reviewing after midnight until dayStartsAt, or
   * a screen left open overnight) takes the new day's queue, as Anki does when its day rolls
   * over: the reviews that came due, a fresh new-card limit, yesterday's buried cards back.
   * The run's answers and its undo stack carry over. Returns the line that says so, or null.
   */
  private followStudyDay(now: number): string | null {
    if (now < this.session.dayEnd) return null;
    const kept = this.rereadSettings();
    const today = this.service.session(this.request, now);
    today.continues(this.session);
    this.replaceSession(today);
    this.cache.clear();
    return kept === null ? NEW_STUDY_DAY : `${NEW_STUDY_DAY}; ${kept}`;
  }

  private nextOfSession(now: number, refreshed = false): ScreenNext {
    const next = this.session.next(now);
    // --limit caps this run's cards: a queue read again would offer its own N afresh (found as a user: it never stopped).
    if (next.kind !== 'card') return refreshed || this.request.limit != null ? next : this.refreshed(now, next);
    // Read as it is now, not as cached when it was last on screen: another kb review may have
    // rated it since (a stale copy showed a card rated twice elsewhere as new).
    this.cache.delete(next.card.id);
    const card = this.card(next.card.id);
    if (!isLive(card) || this.stillUnreadable(card)) {
      // Gone from the database, or from its file (a scan, here or in another process, made it an
      // orphan), or its file broken outside kb and not mended since: skip it. An orphan is named
      // (its note deleted in another editor was skipped in silence, when the scan readAgain ran
      // for another card had found it gone).
      this.session.removed(next.card.id);
      if (card?.orphan) this.skippedNow.push(goneLine(card.path, this.service.currentStamp(card.path) === null));
      return this.nextOfSession(now, refreshed);
    }
    if (!sameAsQueued(card, next.card)) {
      // Rated or changed by another kb since this session queued it: taken as it is now.
      this.changedElsewhere(card.id, card, now);
      return this.nextOfSession(now, refreshed);
    }
    const day = this.day(now);
    this.shownDays.set(card.id, day);
    return { kind: 'card', card: toScreen(card, day) };
  }

  /**
   * This session ran out of cards due now: today's queue is read again from the database, as
   * a fresh launch would read it, before saying done or wait. Another kb review on the same
   * knowledge base may have brought cards back meanwhile (an undo there, an unsuspend) or
   * answered ones this session still counts. This run's answers carry over.
   */
  private refreshed(now: number, next: ScreenNext): ScreenNext {
    const kept = this.rereadSettings();
    const fresh = this.service.session(this.request, now);
    // Taken only when it has a card this session lacks: its counts then are a fresh launch's. A
    // queue with nothing new leaves the session as it is (its undo puts cards back as it has them).
    if (fresh.next(now).kind !== 'card') return withNotice(next, kept);
    fresh.continues(this.session);
    this.replaceSession(fresh);
    this.cache.clear();
    return withNotice(this.nextOfSession(now, true), kept);
  }

  /** Whether the card was skipped as unreadable (readAgain) and its file is still as it was then. */
  private stillUnreadable(card: ReviewCard): boolean {
    if (!this.unreadable.has(card.id)) return false;
    if (this.service.currentStamp(card.path) === this.unreadable.get(card.id)) return true;
    this.unreadable.delete(card.id);
    return false;
  }

  /**
   * Whether the card's file changed on disk since kb read it: one stat, against the stamp the
   * last scan recorded (kept up to date by kb's own write-backs) or the one readAgain read it
   * at. A file written by another editor while the screen is open, or deleted, is told here
   * without scanning the knowledge base for every card.
   */
  fileChanged(cardId: string): boolean {
    const card = this.card(cardId);
    if (!card) return false;
    const stamp = this.service.currentStamp(card.path);
    return stamp === null || (stamp !== this.service.recordedStamp(card.path) && stamp !== this.readAt.get(card.path));
  }

  /**
   * The card's file changed outside kb (fileChanged): the knowledge base is scanned (which parses
   * only the files that changed) and the card read again from it, so the screen shows what the
   * file says now (it showed the text of the last scan, and the edit was only seen at the next
   * launch). A deleted file is told from a moved one by the scan: a moved note keeps its id and
   * is found where it went. The card leaves the session, with a line naming its file, when the
   * file is gone, no longer holds it, or no longer parses (the scan keeps its old text then).
   */
  async readAgain(cardId: string): Promise<ActionResult> {
    // A scan under way (kb review's first) may have read the file already.
    await this.scanning;
    if (!this.fileChanged(cardId)) return { message: null };
    const path = this.card(cardId)?.path;
    if (path === undefined) return { message: null };
    const stamp = this.service.currentStamp(path);
    const errors = await this.serialScan(() => this.run.rescan());
    this.cache.delete(cardId);
    const error = errors.find((diagnostic) => diagnostic.file === path);
    if (error) {
      this.unreadable.set(cardId, stamp);
      this.session.removed(cardId);
      return { message: `skipped: ${path} changed outside kb and no longer reads (${error.line ? `line ${error.line}: ` : ''}${error.message})` };
    }
    if (stamp !== null) this.readAt.set(path, stamp);
    const card = this.card(cardId);
    if (isLive(card)) return { message: null };
    this.session.removed(cardId);
    return { message: goneLine(path, this.service.currentStamp(path) === null) };
  }

  /** Runs a scan once the scans before it are done (scanning). */
  private serialScan<T>(scan: () => Promise<T>): Promise<T> {
    const result = this.scanning.then(scan);
    this.scanning = result.catch(() => undefined);
    return result;
  }

  checkCalc(cardId: string, typed: string, now: number): CalcCheck {
    const card = this.card(cardId);
    const question = card ? dailyCalc(card, this.shownDays.get(cardId) ?? this.day(now)) : null;
    if (!question) return { kind: 'retry', message: 'this card has no calculation to check' };
    return checkTyped(question, typed);
  }

  /** The study day a calc card's values are drawn for. */
  private day(now: number): string {
    return reviewDayLabel(now, this.service.settings.dayStartsAt);
  }

  /**
   * The session's counts. With `now` (the screen's header, at each render), what other kb
   * processes changed of this session's cards is taken in first (followOtherSessions).
   */
  counts(now?: number) {
    if (now !== undefined) this.followOtherSessions(now);
    return this.session.counts();
  }

  /** The cards left in each list of this run's session, in order (for checks against a fresh launch). */
  sessionLists(): SessionLists {
    return this.session.lists();
  }

  options(cardId: string, now: number): AnswerOption[] {
    const card = this.card(cardId);
    if (!card) return [];
    return this.service.preview(card, now).map((preview) => ({
      grade: preview.grade,
      name: GRADE_NAMES[preview.grade],
      label: intervalLabel(preview.intervalMs),
    }));
  }

  rate(cardId: string, grade: Grade, now: number, durationMs: number): ActionResult {
    // Before this answer goes on the stack: what was undone elsewhere is no longer its top.
    this.followUndoneElsewhere();
    // The card's file deleted (or moved) since it was shown: no rating is stored for a card no
    // file holds (it was, and its write-back refused). It stays in the session: met again,
    // readAgain finds where a moved note went, or skips a deleted one.
    const shown = this.card(cardId);
    if (shown && this.service.currentStamp(shown.path) === null) return { message: `not rated: ${shown.path} was moved or deleted since shown` };
    let outcome;
    try {
      outcome = this.service.rate(cardId, grade, now, durationMs, this.cache.get(cardId));
    } catch (error) {
      if (!(error instanceof CardChangedError)) throw error;
      this.changedElsewhere(cardId, shownScheduleOf(error.row), now);
      return { message: changedSinceShown(error.row, now) };
    }
    const before = queueCardOf(cardId, outcome.beforeRow);
    this.cache.delete(cardId);
    this.session.answered(before, grade, outcome.after);
    // A leech suspended by this rating leaves the session (it would come back as relearning).
    if (outcome.leech === 'suspend') this.session.removed(cardId);
    const answerMs = recordedAnswerMs(durationMs);
    this.studiedMs += answerMs;
    this.undoSteps.push({ kind: 'rate', uuid: outcome.uuid, card: before, answerMs });
    return { message: clockBehindMessage(outcome.at, now) ?? fileMessage(outcome.writeback, 'rating') ?? leechMessage(outcome.leech, outcome.after.lapses) };
  }

  /** The card was rated or changed by another kb since this session queued or showed it: the session takes it as it is now. */
  private changedElsewhere(cardId: string, current: ShownSchedule, now: number): void {
    this.cache.delete(cardId);
    const queued = this.session.find(cardId);
    const away = current.suspended || (current.buriedUntil !== null && current.buriedUntil > now);
    const answered = queued !== undefined && !away && current.schedule.lastReview !== null;
    if (answered) this.session.answeredElsewhere(queued, { state: current.schedule.state, due: current.schedule.due });
    else this.session.removed(cardId);
    // Kept to see whether the other kb takes its change back (followTakenBackThere); moved to
    // the end of the map, which keeps the order the session met its cards in.
    this.changedThere.delete(cardId);
    if (queued) this.changedThere.set(cardId, { queued, answered });
  }

  undo(_now: number): ActionResult {
    const step = this.undoSteps.pop();
    if (!step) return { message: 'nothing to undo in this session' };
    this.cache.delete(step.card.id);
    let outcome;
    try {
      outcome = this.service.undo(step.uuid);
    } catch (error) {
      if (error instanceof AlreadyUndoneError) {
        // The card is back as it was before this session's action: the session takes it back too.
        this.takenBack(step);
        return { message: error.message };
      }
      if (error instanceof UndoError && step.kind !== 'rate' && this.backAsBefore(step)) {
        // This run's bury or suspension, taken back since by another kb's unbury or unsuspend
        // (kb unsuspend in a shell): the card is as the session had it before. Refused, the
        // screen sent the user to "undo that one first with kb undo", which buried (or
        // suspended) the card again, only for this u to take it back out: found as a user.
        this.takenBack(step);
        return { message: `already ${step.kind === 'bury' ? 'unburied' : 'unsuspended'} by another kb (kb ${step.kind === 'bury' ? 'unbury' : 'unsuspend'}, or a sync)` };
      }
      if (error instanceof UndoError) {
        // Refused, nothing changed (a later rating from another kb stands, say): the action is
        // still this session's to undo once the user has done what the message says (it was
        // dropped, and the next u said "nothing to undo in this session").
        this.undoSteps.push(step);
        return { message: error.message };
      }
      throw error;
    }
    if (step.kind === 'rate') {
      this.studiedMs -= step.answerMs ?? 0;
      this.session.restored(this.service.queueCard(step.card.id), true);
      return { message: fileMessage(outcome?.file ?? null, 'undo') ?? `undid ${GRADE_LABELS[outcome?.grade ?? 3]}` };
    }
    this.session.restored(step.card, false);
    return { message: step.kind === 'bury' ? 'unburied' : 'unsuspended' };
  }

  /** Whether the card of this run's step is now as the session had it before that step (an unbury elsewhere undid a bury). */
  private backAsBefore(step: UndoStep): boolean {
    try {
      return sameQueueEntry(this.service.queueCard(step.card.id), step.card);
    } catch (error) {
      if (error instanceof UnknownCardError) return false;
      throw error;
    }
  }

  bury(cardId: string, now: number): ActionResult {
    return this.leave(cardId, 'bury', now, 'buried until tomorrow');
  }

  suspend(cardId: string, now: number): ActionResult {
    return this.leave(cardId, 'suspend', now, 'suspended (kb review skips it until kb unsuspend)');
  }

  /** Bury or suspend: the card leaves today's session, and the action is logged for undo. */
  private leave(cardId: string, kind: 'bury' | 'suspend', now: number, message: string): ActionResult {
    this.followUndoneElsewhere();
    const outcome = this.service.act(cardId, kind, now);
    const card = queueCardOf(cardId, outcome.before);
    this.cache.delete(cardId);
    this.session.removed(cardId);
    if (outcome.uuid !== null) this.undoSteps.push({ kind, uuid: outcome.uuid, card });
    return { message };
  }

  get editable(): boolean {
    return this.run.writable;
  }

  editCommand(cardId: string): { command: string; args: string[] } | { refused: string } {
    if (!this.run.writable) return { refused: 'the bundled knowledge base is read-only; kb init DIR makes a personal copy to edit' };
    const card = this.card(cardId);
    if (!card) return { refused: 'the card is gone from the database (kb scan)' };
    const file = join(this.root, card.path);
    return editorInvocation(this.run.editor, card.kind === 'note' ? noteQuestionLine(file) : card.line, file);
  }

  async reload(cardId: string): Promise<ActionResult> {
    const path = this.card(cardId)?.path;
    const errors = await this.serialScan(() => this.run.rescan());
    this.cache.delete(cardId);
    // An edit that broke the file leaves the card as it was: said, with the scan's reason
    // (it said "reloaded" and went on checking answers with the formula from before the edit).
    const error = errors.find((diagnostic) => diagnostic.file === path);
    if (error) {
      // This file as it is now was read, by this edit: the check of the card shown next
      // (readAgain) took it for a change outside kb and skipped the card, so the user
      // could not press e again to mend it (found as a user: YAML broken in the editor).
      const stamp = path === undefined ? null : this.service.currentStamp(path);
      if (path !== undefined && stamp !== null) this.readAt.set(path, stamp);
      return { message: `not reloaded: ${error.file}${error.line ? `:${error.line}` : ''}: ${error.message}` };
    }
    // The edit deleted the card (its section, or the whole note): the scan keeps it as an orphan,
    // with its history, but it is no longer a question to ask. It leaves the session (it was
    // shown again after "reloaded", and rated: found by a probe).
    if (!isLive(this.card(cardId))) {
      this.session.removed(cardId);
      // The edit may have deleted the whole note: then the file, not the card, is what is gone.
      const fileGone = path !== undefined && !existsSync(join(this.root, path));
      if (fileGone) return { message: `the file is gone (${path}): skipped` };
      return { message: `this card is no longer in the file${path ? ` (${path})` : ''}: skipped` };
    }
    return { message: 'reloaded' };
  }

  get labs(): CardLabs {
    return this.run.labs;
  }

  summary(now: number): SessionSummary {
    const grades = this.session.grades;
    // What is due, from the database as it is now with this run's --tag and --deck, as kb due
    // counts it: the session's own lists are capped by --limit (today's learning cards left out
    // of them were counted as tomorrow's) and miss what another kb did meanwhile (a rating
    // there undone with u left this summary counting it as answered).
    const { tag, deck } = this.request;
    const due = this.service.dueCounts({ tag, deck }, now);
    return {
      cards: grades.length,
      again: grades.filter((grade) => grade === 1).length,
      // Time spent answering, not since the screen opened: one left open overnight said "10 cards in 4h 20m".
      elapsedMs: this.studiedMs,
      laterToday: due.later,
      // A run quit early leaves cards due now: said as such, and not counted again as
      // tomorrow's (quitting with 32 cards due said only "2 more later today, tomorrow 12 due").
      stillDue: { learning: due.learning, review: due.review, new: due.new },
      tomorrow: due.tomorrow,
    };
  }

  private card(cardId: string): ReviewCard | null {
    let card = this.cache.get(cardId);
    if (!card) {
      const loaded = this.service.card(cardId);
      if (!loaded) return null;
      card = loaded;
      this.cache.set(cardId, card);
    }
    return card;
  }
}

/** The status line of a card skipped because no file holds it now: its file deleted (or moved out of the knowledge base), or the card taken out of it. */
function goneLine(path: string, fileGone: boolean): string {
  return fileGone ? `skipped: ${path} was deleted outside kb (or moved out of the knowledge base)` : `skipped: this card is no longer in ${path} (changed outside kb)`;
}

/** The status line of the cards next() skipped as gone: the first named, the others counted. */
function skippedLine(lines: readonly string[]): string | null {
  if (lines.length <= 1) return lines[0] ?? null;
  return `${lines[0]}; and ${lines.length - 1} more card${lines.length === 2 ? '' : 's'} no file holds now`;
}

/** `next` with `notice` added to the status line it brings. */
function withNotice(next: ScreenNext, notice: string | null): ScreenNext {
  if (notice === null) return next;
  return { ...next, notice: next.notice ? `${notice}; ${next.notice}` : notice };
}

function toScreen(card: ReviewCard, day: string): ScreenCard {
  const question = dailyCalc(card, day);
  const faces = question ? calcFaces(card, question) : card;
  return {
    id: card.id,
    kind: card.kind,
    front: faces.front,
    back: faces.back,
    full: faces.full,
    path: card.path,
    line: card.line,
    deck: card.deck,
    lab: card.lab,
    stateName: STATE_NAMES[card.schedule.state],
    calc: question ? { unit: card.calc?.unit ?? null } : null,
  };
}

/** Whether the card is still in its file: not gone from the database, and not an orphan. */
function isLive(card: ReviewCard | null): card is ReviewCard {
  return card !== null && !card.orphan;
}

/** Whether the card's row still is what the session queued it as (state, due, not suspended or buried since). */
function sameAsQueued(card: ReviewCard, queued: QueueCard): boolean {
  return sameQueueEntry({ state: card.schedule.state, due: card.schedule.due, suspended: card.suspended, buriedUntil: card.buriedUntil }, queued);
}

/** sameAsQueued for a queue entry read from the card's row. */
function sameQueueEntry(entry: Pick<QueueCard, 'state' | 'due' | 'suspended' | 'buriedUntil'>, queued: QueueCard): boolean {
  return entry.state === queued.state && entry.due === queued.due && entry.suspended === queued.suspended && entry.buriedUntil === queued.buriedUntil;
}
