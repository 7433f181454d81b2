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
 *
 * Each rating is the original of one copy at most: two identical rows of a file in whole
 * seconds are two reviews given within that second, and when the log holds only one of them
 * under another id, the other still counts (each was taken for a copy of that one, and the
 * second review was lost). Copies are matched in the order their windows end (a millisecond's
 * before the second around it), each to the earliest rating in its window not yet matched: the
 * most copies the ratings can account for, the same whatever order the events came in.
 */
export function importedCopies(events: readonly EventRow[]): Set<string> {
  const copies = new Set<string>();
  const imported = events.filter((event) => event.kind === 'rate' && isImported(event.id));
  if (imported.length === 0) return copies;
  const byTimeThenId = (a: EventRow, b: EventRow) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const ratings = events.filter((event) => event.kind === 'rate').sort(byTimeThenId);
  const matched = new Set<EventRow>();
  const byWindowEnd = imported
    .map((copy) => ({ copy, window: importedTimeWindow(copy.at) }))
    .sort((a, b) => a.window.until - b.window.until || byTimeThenId(a.copy, b.copy));
  for (const { copy, window } of byWindowEnd) {
    const original = ratings.find(
      (other) =>
        other !== copy &&
        !matched.has(other) &&
        other.rating === copy.rating &&
        other.at >= window.from &&
        other.at < window.until &&
        // Two imported ratings at one time are two rows of the file (their ids count them), not a copy.
        (!isImported(other.id) || other.at !== copy.at),
    );
    if (original === undefined) continue;
    matched.add(original);
    copies.add(copy.id);
  }
  return copies;
}
