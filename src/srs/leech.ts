// Leeches, as Anki finds them: a card that keeps lapsing costs more reviews than it is
// worth. A lapse that brings a card's lapses to `leechThreshold` makes it a leech, and so
// does every half threshold of lapses after that (8, 12, 16, ... with the default 8), so a
// card unsuspended and still failing is flagged again.
import type { FsrsState } from '../model/fsrs-state.ts';

export type LeechAction = 'tag' | 'suspend';

export interface LeechSettings {
  /** Lapses that make a card a leech (kb.json leechThreshold; Anki's default 8). */
  leechThreshold?: number;
  /** What then happens to it: only tagged, or also suspended (kb.json leechAction). */
  leechAction?: LeechAction;
}

export const DEFAULT_LEECH_THRESHOLD = 8;
export const DEFAULT_LEECH_ACTION: LeechAction = 'tag';

/** Whether this rating (from `before` to `after`) is the lapse that makes the card a leech. */
export function becameLeech(before: FsrsState, after: FsrsState, settings: LeechSettings): boolean {
  const threshold = settings.leechThreshold ?? DEFAULT_LEECH_THRESHOLD;
  if (after.lapses <= before.lapses || after.lapses < threshold) return false;
  return (after.lapses - threshold) % Math.max(1, Math.floor(threshold / 2)) === 0;
}

/** The one line kb review and kb rate show when a rating makes the card a leech. */
export function leechMessage(leech: LeechAction | null, lapses: number): string | null {
  if (leech === null) return null;
  const count = `${lapses} lapse${lapses === 1 ? '' : 's'}`;
  return leech === 'suspend'
    ? `leech: ${count}; suspended (kb unsuspend brings it back, kb cards --state leech lists leeches)`
    : `leech: ${count}; tagged leech (kb cards --state leech lists leeches)`;
}
