// One review session in memory: which card comes next, what is left, what was done.
// Built once from the queue, then updated from each answer, so picking the next card costs
// no database round trip. No clock of its own. Reviews and new cards are read a page at a
// time (a backlog of thousands costs no more to open than a day of twenty), through
// cursors the store supplies.
import { LEARNING, NEW, RELEARNING, REVIEW, type CardState, type Grade } from './state.ts';
import type { QueueCard } from './queue.ts';

/** One list of today's queue, read in queue order a page at a time. */
export interface CardCursor {
  /** How many cards the list holds in all, limits applied. */
  readonly total: number;
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

/** The cards of one cursor read so far and not yet answered, and how many are still unread. */
class PagedList {
  private readonly cursor: CardCursor;
  private readonly pageSize: number;
  private readonly loaded: QueueCard[] = [];
  private unread: number;

  constructor(cursor: CardCursor, pageSize: number) {
    this.cursor = cursor;
    this.pageSize = pageSize;
    this.unread = cursor.total;
  }

  get length(): number {
    return this.loaded.length + this.unread;
  }

  first(): QueueCard | undefined {
    if (this.loaded.length === 0 && this.unread > 0) {
      const wanted = Math.min(this.pageSize, this.unread);
      const page = this.cursor.next(wanted);
      this.loaded.push(...page);
      // A short page means the list ended early (its cards changed since it was counted).
      this.unread = page.length < wanted ? 0 : this.unread - page.length;
    }
    return this.loaded[0];
  }

  /** Takes a card out; it is one shown by next(), so it is among those read (read the head first). */
  remove(cardId: string): void {
    this.first();
    const at = this.loaded.findIndex((card) => card.id === cardId);
    if (at >= 0) this.loaded.splice(at, 1);
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

function insertByDue(list: QueueCard[], card: QueueCard): void {
  let at = list.findIndex((other) => other.due > card.due);
  if (at < 0) at = list.length;
  list.splice(at, 0, card);
}

export class ReviewSession {
  private readonly learning: QueueCard[];
  private readonly review: PagedList;
  private readonly fresh: PagedList;
  /** A card brought back by undo: it is shown next, whatever its state. */
  private priority: QueueCard | null = null;
  private readonly answers: Grade[] = [];
  readonly dayEnd: number;
  readonly learnAheadMs: number;

  constructor(queue: SessionQueue, dayEnd: number, learnAheadMs = LEARN_AHEAD_MS, pageSize = PAGE_SIZE) {
    this.learning = [...queue.learning, ...queue.later].sort((a, b) => a.due - b.due);
    this.review = new PagedList(queue.review, pageSize);
    this.fresh = new PagedList(queue.new, pageSize);
    this.dayEnd = dayEnd;
    this.learnAheadMs = learnAheadMs;
  }

  next(now: number): NextCard {
    if (this.priority) return { kind: 'card', card: this.priority };
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
    const counts = { new: this.fresh.length, learning: this.learning.length, review: this.review.length, done: this.answers.length };
    if (this.priority) counts[bucket(this.priority.state)] += 1;
    return counts;
  }

  /** The card was answered; a learning step due today brings it back later in the session. */
  answered(card: QueueCard, grade: Grade, after: { state: CardState; due: number }): void {
    this.remove(card.id);
    this.answers.push(grade);
    if ((after.state === LEARNING || after.state === RELEARNING) && after.due < this.dayEnd) {
      insertByDue(this.learning, { ...card, state: after.state, due: after.due });
    }
  }

  /** The card left today's queue (buried or suspended). */
  removed(cardId: string): void {
    this.remove(cardId);
  }

  /** Undo: the card returns with its earlier state and is shown next. */
  restored(card: QueueCard, undidAnswer: boolean): void {
    this.remove(card.id);
    if (undidAnswer) this.answers.pop();
    this.priority = card;
  }

  /** Grades given so far, in order (for the end-of-session summary). */
  get grades(): readonly Grade[] {
    return this.answers;
  }

  private remove(cardId: string): void {
    if (this.priority?.id === cardId) this.priority = null;
    const at = this.learning.findIndex((card) => card.id === cardId);
    if (at >= 0) this.learning.splice(at, 1);
    this.review.remove(cardId);
    this.fresh.remove(cardId);
  }
}

function bucket(state: CardState): 'new' | 'learning' | 'review' {
  if (state === NEW) return 'new';
  if (state === REVIEW) return 'review';
  return 'learning';
}
