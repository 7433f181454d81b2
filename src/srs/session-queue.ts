// One review session in memory: which card comes next, what is left, what was done.
// Built once from the queue, then updated from each answer, so picking the next card costs
// no database round trip. No clock of its own. Reviews and new cards are read a page at a
// time (a backlog of thousands costs no more to open than a day of twenty), through
// cursors the store supplies.
import { LEARNING, NEW, RELEARNING, REVIEW, type CardState, type Grade } from '../model/fsrs-state.ts';
import type { QueueCard } from './queue.ts';

/** One list of today's queue, read in queue order a page at a time. */
export interface CardCursor {
  /** How many cards the list holds in all, limits applied. */
  readonly total: number;
  /**
   * How many cards the store holds for the list before today's limit cut it (at least
   * `total`; `total` when left out). A card buried or suspended in the session frees its
   * place under the limit, and the next of these takes it, as a fresh launch would show.
   */
  readonly available?: number;
  /** The next cards of the list, at most `count`; fewer only at its end. */
  next(count: number): QueueCard[];
}

/** Today's queue as a session reads it: learning cards whole (few), the rest by cursor. */
export interface SessionQueue {
  learning: QueueCard[];
  later: QueueCard[];
  review: CardCursor;
  new: CardCursor;
}

/** How many cards a session reads from a cursor at once. */
export const PAGE_SIZE = 50;

/**
 * The cards of one cursor read so far and not yet answered, how many are still unread, and
 * how many today's limit still lets the session show (`allowance`): answering a card uses
 * one up, burying or suspending one does not, undo gives it back.
 */
class PagedList {
  private readonly cursor: CardCursor;
  private readonly pageSize: number;
  private readonly loaded: QueueCard[] = [];
  private unread: number;
  private allowance: number;

  constructor(cursor: CardCursor, pageSize: number) {
    this.cursor = cursor;
    this.pageSize = pageSize;
    this.unread = Math.max(cursor.total, cursor.available ?? cursor.total);
    this.allowance = cursor.total;
  }

  get length(): number {
    return Math.min(this.allowance, this.loaded.length + this.unread);
  }

  first(): QueueCard | undefined {
    if (this.length === 0) return undefined;
    if (this.loaded.length === 0 && this.unread > 0) this.readPage();
    return this.loaded[0];
  }

  private readPage(): void {
    const wanted = Math.min(this.pageSize, this.unread);
    const page = this.cursor.next(wanted);
    this.loaded.push(...page);
    // A short page means the list ended early (its cards changed since it was counted).
    this.unread = page.length < wanted ? 0 : this.unread - page.length;
  }

  /** Takes a card out, if here; it is one shown by next(), so it is among those read (read the head first). */
  remove(cardId: string, usesAllowance: boolean): void {
    this.first();
    const at = this.loaded.findIndex((card) => card.id === cardId);
    if (at < 0) return;
    this.loaded.splice(at, 1);
    if (usesAllowance) this.allowance -= 1;
  }

  /**
   * Undo: the card goes back to the head of the list. It was the head when it left (a
   * session answers, buries or suspends only the card it shows), and undo takes actions
   * back latest first, so the cards put back before it were behind it.
   */
  putBack(card: QueueCard, givesAllowanceBack: boolean): void {
    this.loaded.unshift(card);
    if (givesAllowanceBack) this.allowance += 1;
  }

  /** A card of the list the session may show, if it is one. */
  find(cardId: string): QueueCard | undefined {
    return this.loaded.slice(0, this.length).find((card) => card.id === cardId);
  }

  /** The cards of the list read so far that the session may show (no page is read). */
  read(): QueueCard[] {
    return this.loaded.slice(0, this.length);
  }

  /** Every card left in the list, in order (reads the rest of the cursor). */
  all(): QueueCard[] {
    while (this.unread > 0) this.readPage();
    return this.loaded.slice(0, this.length);
  }
}

/** Anki's default "learn ahead" limit: with nothing else left, a learning card due within it is shown early. */
export const LEARN_AHEAD_MS = 20 * 60_000;

export type NextCard =
  | { kind: 'card'; card: QueueCard }
  | { kind: 'wait'; until: number }
  | { kind: 'done' };

export interface SessionCounts {
  new: number;
  learning: number;
  review: number;
  done: number;
}

/** Learning cards in the store's order: by due, then by id (two steps can end at the same ms). */
function learningOrder(a: QueueCard, b: QueueCard): number {
  return a.due - b.due || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function insertByDue(list: QueueCard[], card: QueueCard): void {
  let at = list.findIndex((other) => learningOrder(other, card) > 0);
  if (at < 0) at = list.length;
  list.splice(at, 0, card);
}

/** The ids of the cards left in each list, in the order a session shows them. */
export interface SessionLists {
  learning: string[];
  review: string[];
  new: string[];
}

export class ReviewSession {
  private readonly learning: QueueCard[];
  private readonly review: PagedList;
  private readonly fresh: PagedList;
  /**
   * Cards brought back by undo, latest last: each is back in its own list, and the latest
   * is shown next whatever its state (as Anki does); once it is answered, the one before.
   */
  private readonly undone: string[] = [];
  private readonly answers: Grade[] = [];
  readonly dayEnd: number;
  readonly learnAheadMs: number;

  constructor(queue: SessionQueue, dayEnd: number, learnAheadMs = LEARN_AHEAD_MS, pageSize = PAGE_SIZE) {
    this.learning = [...queue.learning, ...queue.later].sort(learningOrder);
    this.review = new PagedList(queue.review, pageSize);
    this.fresh = new PagedList(queue.new, pageSize);
    this.dayEnd = dayEnd;
    this.learnAheadMs = learnAheadMs;
  }

  next(now: number): NextCard {
    const undone = this.latestUndone();
    if (undone) return { kind: 'card', card: undone };
    const firstLearning = this.learning[0];
    if (firstLearning && firstLearning.due <= now) return { kind: 'card', card: firstLearning };
    const review = this.review.first();
    if (review) return { kind: 'card', card: review };
    const fresh = this.fresh.first();
    if (fresh) return { kind: 'card', card: fresh };
    if (firstLearning && firstLearning.due <= now + this.learnAheadMs) return { kind: 'card', card: firstLearning };
    if (firstLearning) return { kind: 'wait', until: firstLearning.due - this.learnAheadMs };
    return { kind: 'done' };
  }

  counts(): SessionCounts {
    return { new: this.fresh.length, learning: this.learning.length, review: this.review.length, done: this.answers.length };
  }

  /** The card was answered; a learning step due today brings it back later in the session. */
  answered(card: QueueCard, grade: Grade, after: { state: CardState; due: number }): void {
    this.answers.push(grade);
    this.takeAnswered(card, after);
  }

  /**
   * Another kb session answered the card (its row now says `after`): it leaves its list as an
   * answer here would (today's limit counted it there), and comes back if in learning today,
   * but the answer is not this session's.
   */
  answeredElsewhere(card: QueueCard, after: { state: CardState; due: number }): void {
    this.takeAnswered(card, after);
  }

  /** A card of this session's lists, if it is one. */
  find(cardId: string): QueueCard | undefined {
    return this.learning.find((card) => card.id === cardId) ?? this.review.find(cardId) ?? this.fresh.find(cardId);
  }

  /**
   * The cards of this session's lists read so far: learning ones, and the pages of reviews and
   * new cards read (a list's later pages are read from the database as it is then). What the
   * header counts that another kb may have changed meanwhile; no page is read for it.
   */
  queued(): QueueCard[] {
    return [...this.learning, ...this.review.read(), ...this.fresh.read()];
  }

  private takeAnswered(card: QueueCard, after: { state: CardState; due: number }): void {
    this.remove(card.id, true);
    if ((after.state === LEARNING || after.state === RELEARNING) && after.due < this.dayEnd) {
      insertByDue(this.learning, { ...card, state: after.state, due: after.due });
    }
  }

  /** The card left today's queue (buried or suspended): the next card under today's limit takes its place. */
  removed(cardId: string): void {
    this.remove(cardId, false);
  }

  /**
   * Undo: the card returns, in `card`'s state, to the list of that state, and is shown next.
   * `undidAnswer`: an answer was taken back, so today's limit counts the card again.
   */
  restored(card: QueueCard, undidAnswer: boolean): void {
    if (undidAnswer) this.answers.pop();
    this.putBack(card, undidAnswer);
    this.undone.push(card.id);
  }

  /**
   * Another kb session took back what it did to the card (an undo there): the card returns to
   * its list as this session had it queued, as a fresh launch would have it, but neither takes
   * an answer of this session back nor comes first. `answeredThere`: the change was an answer,
   * which today's limit counted (answeredElsewhere), so the limit counts the card again.
   */
  returned(card: QueueCard, answeredThere: boolean): void {
    this.putBack(card, answeredThere);
  }

  /** The card back in the list of its state (learning ones by due), wherever the session had it. */
  private putBack(card: QueueCard, givesAllowanceBack: boolean): void {
    this.remove(card.id, false);
    if (card.state === NEW) this.fresh.putBack(card, givesAllowanceBack);
    else if (card.state === REVIEW) this.review.putBack(card, givesAllowanceBack);
    else insertByDue(this.learning, card);
  }

  /**
   * A session built afresh for a new study day within the same kb review run: this run's
   * answers so far carry over (its done count and summary cover the whole run).
   */
  continues(earlier: ReviewSession): void {
    this.answers.unshift(...earlier.answers);
  }

  /** Grades given so far, in order (for the end-of-session summary). */
  get grades(): readonly Grade[] {
    return this.answers;
  }

  /** Every card left, list by list, in the order each list shows them (reads every page: for checks, not the screen). */
  lists(): SessionLists {
    const ids = (cards: QueueCard[]) => cards.map((card) => card.id);
    return { learning: ids(this.learning), review: ids(this.review.all()), new: ids(this.fresh.all()) };
  }

  /** The latest card undo brought back that is still waiting, found in its list. */
  private latestUndone(): QueueCard | undefined {
    while (this.undone.length > 0) {
      const id = this.undone[this.undone.length - 1];
      const card = this.find(id);
      if (card) return card;
      this.undone.pop();
    }
    return undefined;
  }

  /** `answered`: an answer takes the card out of today's limit; a bury or suspension does not. */
  private remove(cardId: string, answered: boolean): void {
    const undoneAt = this.undone.lastIndexOf(cardId);
    if (undoneAt >= 0) this.undone.splice(undoneAt, 1);
    const at = this.learning.findIndex((card) => card.id === cardId);
    if (at >= 0) this.learning.splice(at, 1);
    this.review.remove(cardId, answered);
    this.fresh.remove(cardId, answered);
  }
}
