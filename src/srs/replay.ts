// Replaying a card's events: the same events give the same row on every device. A rating
// is computed here for kb rate and kb review as well as for a replay, so a rating stored
// live and the same rating replayed from the log cannot differ.
import type { EventRow, ReplayedEntry } from '../store/review-events.ts';
import { columnsFromState, columnsJson, stateFromColumns, type FsrsColumns } from '../model/fsrs-state.ts';
import { applyAction } from './card-action-rules.ts';
import { importedCopies } from './imported-copies.ts';
import { localMinuteLabel, nextReviewDayStart } from './study-day.ts';
import { becameLeech, DEFAULT_LEECH_ACTION, type LeechAction } from './leech.ts';
import type { FsrsScheduler } from './fsrs.ts';
import { fsrsParameters, type ReviewSettings } from './review-settings.ts';
import type { FsrsState, Grade } from '../model/fsrs-state.ts';

export interface Rated {
  at: number;
  before: FsrsState;
  after: FsrsState;
  afterRow: FsrsColumns;
  leech: LeechAction | null;
}

/** A rating of a card whose row is `beforeRow`, given at `now` (or just after the card's last review, if that is later). */
export function rateRow(scheduler: FsrsScheduler, cardId: string, beforeRow: FsrsColumns, grade: Grade, now: number): Rated {
  const settings = scheduler.settings;
  const before = stateFromColumns(beforeRow);
  // A rating stored by another process since `now` was read comes first: the log
  // of one card stays in time order, so it replays in the order it was applied.
  const at = Math.max(now, before.lastReview ?? now);
  const after = scheduler.rate(cardId, before, grade, at);
  const leech = becameLeech(before, after, settings) ? (settings.leechAction ?? DEFAULT_LEECH_ACTION) : null;
  const afterRow: FsrsColumns = {
    ...columnsFromState(after, { suspended: beforeRow.suspended === 1 || leech === 'suspend', buriedUntil: beforeRow.buried_until }),
    leech: leech !== null ? 1 : (beforeRow.leech ?? 0),
  };
  return { at, before, after, afterRow, leech };
}

/**
 * How far `now` may be behind the card's last review before kb says a clock looks wrong: a
 * rating that waited on another kb's (seconds), or a device a little off, is not worth a word.
 * Anki's sync lets clocks differ by as much (five minutes) before it asks for the clock fixed.
 */
export const CLOCK_TOLERANCE_MS = 5 * 60_000;

/**
 * What kb rate and kb review say of a rating stored at `at` though given at `now`, when the
 * clock is behind the card's last review (the machine's clock set back, or the device that
 * reviewed it last is ahead): the rating is stored at that last review's time so the card's
 * log stays in time order, and the learner is told (it went unsaid: a rating given at a clock
 * 11 months back was stored as one given 11 months later, with nothing said).
 */
export function clockBehindMessage(at: number, now: number): string | null {
  if (at - now <= CLOCK_TOLERANCE_MS) return null;
  return `the clock (${localMinuteLabel(now)}) is behind this card's last review (${localMinuteLabel(at)}): the rating is stored at that time, to keep the card's reviews in order; check this machine's clock, or that of the device that reviewed the card`;
}

export interface Replay {
  row: FsrsColumns;
  /** The events that stand, each with the row before and after it. */
  entries: ReplayedEntry[];
}

/**
 * A card's row after its events, in replay order (time, device, the device's own order; the
 * caller sorts). It starts from the seed of the first event that carries one (the row the
 * card had on that device before its first event there), else from `fallback`. Events an
 * undo took back are skipped; an action that changes nothing at its place is skipped too, and
 * so is an imported copy of a rating the logs hold (imported-copies.ts), whose seed is used
 * only when no other event carries one.
 */
export function replayCard(scheduler: FsrsScheduler, cardId: string, events: readonly EventRow[], fallback: FsrsColumns): Replay {
  const copies = importedCopies(events);
  const seeded = events.find((event) => event.seed !== null && !copies.has(event.id)) ?? events.find((event) => event.seed !== null);
  let row: FsrsColumns = seeded ? (JSON.parse(seeded.seed as string) as FsrsColumns) : fallback;
  row = { ...row, leech: row.leech ?? 0 };
  const undone = new Set(events.filter((event) => event.kind === 'undo').map((event) => event.target));
  const entries: ReplayedEntry[] = [];
  for (const event of events) {
    if (event.kind === 'undo' || undone.has(event.id) || copies.has(event.id)) continue;
    if (event.kind === 'rate') {
      const after = rateRow(scheduler, cardId, row, event.rating as Grade, event.at).afterRow;
      // rateRow builds the row with the columns in their order: columnsJson writes what JSON.stringify would.
      entries.push({ event, before: row, after, afterJson: columnsJson(after) });
      row = after;
      continue;
    }
    const dayEnd = nextReviewDayStart(event.at, scheduler.settings.dayStartsAt).getTime();
    const after = applyAction(event.kind, row, { now: event.at, dayEnd, resetCounts: event.reset_counts === 1 });
    if (after === null) continue;
    entries.push({ event, before: row, after });
    row = after;
  }
  return { row, entries };
}

/**
 * Everything in kb.json a replay depends on. When it changes (kb optimize fitted new weights,
 * a new desired retention, ...) every card is replayed under the new settings, as Anki
 * recomputes memory states from the review history: the schedule stays a function of the
 * logs and kb.json, the same on every clone.
 */
export function replaySettingsKey(settings: ReviewSettings): string {
  const { leechThreshold, leechAction, dayStartsAt } = settings;
  return JSON.stringify({ fsrs: fsrsParameters(settings), dayStartsAt, leechThreshold: leechThreshold ?? null, leechAction: leechAction ?? null });
}
