// A review brought in with kb import --revlog may be one a device's log already holds under
// its own id: another clone's export imported before the two synced (found by a new-user
// probe: the merged logs counted the review twice, reps 2 for one answer, on both clones). The
// union of the logs is by id, so the replay recognises such a copy itself: an imported rating
// of the same card, with the same answer, at the same time as the CSV held it (to the
// millisecond, or to the second when its time is a whole second) as a rating kb logged. The
// rule looks at a card's events as a set, never at the order they arrived in, so every clone
// skips the same copies.
import type { EventRow } from '../store/review-events.ts';

/** What the id of an event made by kb import --revlog starts with. */
export const IMPORTED_EVENT_PREFIX = 'revlog-';

export function isImported(id: string): boolean {
  return id.startsWith(IMPORTED_EVENT_PREFIX);
}

/**
 * The times [from, until) a review given at `at` may have been logged at, when `at` is read
 * from a revlog CSV: that millisecond, or the whole second a time in seconds stands for.
 */
export function importedTimeWindow(at: number): { from: number; until: number } {
  return { from: at, until: at % 1000 === 0 ? at + 1000 : at + 1 };
}

/**
 * The ids of a card's imported ratings that are copies of another of its ratings: one kb
 * logged (same rating, its time within the imported one's window), or an imported one read
 * at a finer time (a file in milliseconds, and another in seconds). The replay skips them.
 */
export function importedCopies(events: readonly EventRow[]): Set<string> {
  const copies = new Set<string>();
  const imported = events.filter((event) => event.kind === 'rate' && isImported(event.id));
  if (imported.length === 0) return copies;
  const ratings = events.filter((event) => event.kind === 'rate');
  for (const copy of imported) {
    const { from, until } = importedTimeWindow(copy.at);
    const original = ratings.some(
      (other) =>
        other !== copy &&
        other.rating === copy.rating &&
        other.at >= from &&
        other.at < until &&
        // Two imported ratings at one time are one event (their id is made of card, time and answer).
        (!isImported(other.id) || other.at !== copy.at),
    );
    if (original) copies.add(copy.id);
  }
  return copies;
}
