// While git is mid-way through a merge, rebase, cherry-pick or revert in the knowledge base,
// kb writes no note: a note rewritten under git (its review fields, after a replay) would stop
// `git rebase --continue` and could land in a file still holding conflict markers. The
// database updates as usual; the cards whose fields wait are kept in its meta table, and the
// first open after the operation writes them.
import { gitOperationInProgress, type GitOperation } from '../../kb/git-operation.ts';
import type { ReviewEventQueries } from '../../store/review-events.ts';

const DEFERRED_KEY = 'review_fields_deferred';

/** What may happen to notes now: written, held until git's operation ends, or never (read-only). */
export type NoteWrites = { mode: 'now' } | { mode: 'deferred'; operation: GitOperation } | { mode: 'never' };

export function noteWrites(target: { root: string; writable: boolean }): NoteWrites {
  if (!target.writable) return { mode: 'never' };
  const operation = gitOperationInProgress(target.root);
  return operation === null ? { mode: 'now' } : { mode: 'deferred', operation };
}

/** The reason a write-back gives while git's operation holds the notes. */
export function deferredReason(operation: GitOperation): string {
  return `a git ${operation} is in progress (the note and the review log are written once it ends)`;
}

/** Adds cards to those whose fields wait (inside the caller's transaction, or on its own). */
export function deferFields(events: ReviewEventQueries, cardIds: readonly string[]): void {
  if (cardIds.length === 0) return;
  const waiting = new Set([...deferredFields(events), ...cardIds]);
  events.setMeta(DEFERRED_KEY, JSON.stringify([...waiting].sort()));
}

/** The cards whose fields wait; a cheap read (one meta row), asked on every open. */
export function deferredFields(events: Pick<ReviewEventQueries, 'meta'>): string[] {
  const stored = events.meta(DEFERRED_KEY);
  if (stored === null || stored === '[]') return [];
  try {
    const ids = JSON.parse(stored) as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}

/** The cards `written` no longer wait. */
export function settleDeferred(events: ReviewEventQueries, written: readonly string[]): void {
  const done = new Set(written);
  events.setMeta(DEFERRED_KEY, JSON.stringify(deferredFields(events).filter((id) => !done.has(id))));
}
