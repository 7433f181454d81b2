// What each card action (kb suspend | unsuspend | unbury | forget, and the review screen's
// b and s keys) does to a card's row: pure functions, no I/O. ReviewService stores the
// result with a card_actions row so kb undo takes it back.
import type { CardAction } from '../store/card-action-log.ts';
import type { FsrsColumns } from '../model/fsrs-state.ts';
import { NEW } from '../model/fsrs-state.ts';

export interface ActionContext {
  now: number;
  /** When the current review day ends (bury lasts until then). */
  dayEnd: number;
  /** forget: reps and lapses go back to 0 as well (Anki's "Reset repetition and lapse counts"). */
  resetCounts?: boolean;
}

/** The card's row after the action, or null when the action changes nothing (already suspended, not buried, ...). */
export function applyAction(action: CardAction, row: FsrsColumns, context: ActionContext): FsrsColumns | null {
  switch (action) {
    case 'suspend':
      return row.suspended === 1 ? null : { ...row, suspended: 1 };
    case 'unsuspend':
      return row.suspended === 0 ? null : { ...row, suspended: 0 };
    case 'bury':
      return row.buried_until !== null && row.buried_until >= context.dayEnd ? null : { ...row, buried_until: context.dayEnd };
    case 'unbury':
      return row.buried_until === null || row.buried_until <= context.now ? null : { ...row, buried_until: null };
    case 'forget':
      return forget(row, context);
  }
}

/**
 * Anki's Forget (ts-fsrs forget()): the card is new again, due now, its memory state gone;
 * reps and lapses stay unless `resetCounts`; suspension, burial and the leech flag stay.
 */
function forget(row: FsrsColumns, context: ActionContext): FsrsColumns | null {
  const counts = context.resetCounts ? { reps: 0, lapses: 0 } : { reps: row.reps, lapses: row.lapses };
  if (row.state === NEW && (!context.resetCounts || (row.reps === 0 && row.lapses === 0))) return null;
  return { ...row, ...counts, due: context.now, stability: 0, difficulty: 0, elapsed_days: 0, scheduled_days: 0, learning_steps: 0, state: NEW };
}

/** Past tense, for messages: "suspended", "unburied". */
export const ACTION_DONE: Record<CardAction, string> = {
  suspend: 'suspended',
  unsuspend: 'unsuspended',
  bury: 'buried',
  unbury: 'unburied',
  forget: 'forgotten (new again)',
};
