// What the review screen (src/ui/review) needs from a review run, as plain data and
// callbacks. ReviewRun (review-run.ts) is the real one; component tests pass a fake.
import type { CardLabs } from '../card-labs/card-labs.ts';
import type { CalcCheck } from './review-calc.ts';

export interface ScreenCard {
  id: string;
  kind: 'note' | 'card';
  /** Markdown. */
  front: string;
  back: string;
  full: string;
  path: string;
  line: number;
  deck: string;
  lab: string | null;
  /** new, learning, review or relearning. */
  stateName: string;
  /** A calc card (front and back hold the day's values): the answer is typed, then checked by checkCalc. */
  calc?: { unit: string | null } | null;
}

export type ScreenNext = ({ kind: 'card'; card: ScreenCard } | { kind: 'wait'; until: number } | { kind: 'done' }) & {
  /** A line for the status bar that came with it (a new study day's queue was taken). */
  notice?: string;
};

export interface ScreenCounts {
  new: number;
  learning: number;
  review: number;
  done: number;
}

export interface AnswerOption {
  grade: 1 | 2 | 3 | 4;
  name: string;
  /** The interval if chosen: <1m, 10m, 4d, 2.5mo. */
  label: string;
}

export interface ActionResult {
  /** A line for the status bar (what happened, or why the file was not written). */
  message: string | null;
}

export interface SessionSummary {
  cards: number;
  again: number;
  elapsedMs: number;
  /** Learning cards whose next step comes later today. */
  laterToday: number;
  /**
   * What is left due now (quit early, or a --limit run done), read from the database with the
   * run's --tag and --deck: what kb due with them says.
   */
  stillDue: { learning: number; review: number; new: number };
  /** Cards that fall due by the end of tomorrow, today's left out (those still due now, or later today). */
  tomorrow: number;
}

export interface ReviewController {
  next(now: number): ScreenNext;
  /**
   * What is done and left, for the header. `now`: asked at a redraw, so what other kb processes
   * (another terminal's kb review) changed of the session's cards since is counted as it is now.
   */
  counts(now?: number): ScreenCounts;
  options(cardId: string, now: number): AnswerOption[];
  rate(cardId: string, grade: 1 | 2 | 3 | 4, now: number, durationMs: number): ActionResult;
  /** Takes back the latest action of this session (rating, bury or suspend). */
  undo(now: number): ActionResult;
  bury(cardId: string, now: number): ActionResult;
  suspend(cardId: string, now: number): ActionResult;
  /** Whether e (edit) is offered: false on the read-only bundled knowledge base. */
  readonly editable?: boolean;
  /** The command that opens the card in the user's editor, or why it may not be edited. */
  editCommand(cardId: string): { command: string; args: string[] } | { refused: string };
  /** Re-reads the card's file after an edit. */
  reload(cardId: string): Promise<ActionResult>;
  /**
   * Whether the card's file changed on disk since kb read it (written by another editor while
   * the screen is open, or deleted): one stat. The screen then calls readAgain before it shows
   * the card, or its answer.
   */
  fileChanged?(cardId: string): boolean;
  /**
   * Reads a changed file again (a scan: it parses only the files that changed). The card is then
   * what the file says now; one whose file is gone (a moved note is found where it went), no
   * longer holds it or no longer parses leaves the session, and `message` says so.
   */
  readAgain?(cardId: string): Promise<ActionResult>;
  /**
   * Brings the knowledge base up to date once the first card is on screen (kb review draws
   * from the database as it stands and scans the files meanwhile); `changed` when cards
   * changed, so the screen takes its card again.
   */
  catchUp?(): Promise<ActionResult & { changed: boolean }>;
  summary(now: number): SessionSummary;
  /** Checks a number typed for a calc card against the day's values. */
  checkCalc?(cardId: string, typed: string, now: number): CalcCheck;
  /** A card's lab: `l` runs it in place; its latest stored result is shown on the card's back. */
  readonly labs: CardLabs;
}
