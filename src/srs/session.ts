// One review session in memory: which card comes next, what is left, what was done.
// Built once from the queue, then updated from each answer, so picking the next card costs
// no database round trip. Pure: no clock of its own, no I/O.
import { LEARNING, NEW, RELEARNING, REVIEW, type CardState, type Grade } from './state.ts';
import type { DueQueue, QueueCard } from './queue.ts';

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
  private readonly review: QueueCard[];
  private readonly fresh: QueueCard[];
  /** A card brought back by undo: it is shown next, whatever its state. */
  private priority: QueueCard | null = null;
  private readonly answers: Grade[] = [];
  readonly dayEnd: number;
  readonly learnAheadMs: number;

  constructor(queue: DueQueue, dayEnd: number, learnAheadMs = LEARN_AHEAD_MS) {
    this.learning = [...queue.learning, ...queue.later].sort((a, b) => a.due - b.due);
    this.review = [...queue.review];
    this.fresh = [...queue.new];
    this.dayEnd = dayEnd;
    this.learnAheadMs = learnAheadMs;
  }

  next(now: number): NextCard {
    if (this.priority) return { kind: 'card', card: this.priority };
    const firstLearning = this.learning[0];
    if (firstLearning && firstLearning.due <= now) return { kind: 'card', card: firstLearning };
    if (this.review[0]) return { kind: 'card', card: this.review[0] };
    if (this.fresh[0]) return { kind: 'card', card: this.fresh[0] };
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
    for (const list of [this.learning, this.review, this.fresh]) {
      const at = list.findIndex((card) => card.id === cardId);
      if (at >= 0) list.splice(at, 1);
    }
  }
}

function bucket(state: CardState): 'new' | 'learning' | 'review' {
  if (state === NEW) return 'new';
  if (state === REVIEW) return 'review';
  return 'learning';
}
