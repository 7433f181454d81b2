// One rule for --tag and --deck in kb review, kb due, kb quiz and kb cards: a name no card of the
// knowledge base has is a user error naming it (most likely a typo), with the closest
// names that exist. A known name with nothing due is not an error: "Nothing due", exit 0.
import { distance } from 'fastest-levenshtein';
import type { KbDatabase } from '../store/db.ts';
import { filterNames, hasFilterName } from '../store/filter-names.ts';
import { UserError } from './errors.ts';

export interface FilterFlags {
  tag?: string;
  deck?: string;
}

/** The problem with the filter, or null when every name it gives is used by some card. */
export function unknownFilterProblem(flags: FilterFlags, db: KbDatabase): string | null {
  for (const [flag, value] of [
    ['--tag', flags.tag],
    ['--deck', flags.deck],
  ] as const) {
    const kind = flag === '--tag' ? 'tag' : 'deck';
    if (value === undefined || hasFilterName(db, kind, value)) continue;
    const names = filterNames(db);
    const closest = closestNames(value, kind === 'tag' ? names.tags : names.decks, 3);
    const hint = closest.length > 0 ? `; closest: ${closest.join(', ')}` : `; this knowledge base has no ${kind}s`;
    return `${flag}: no card has the ${kind} "${value}"${hint}`;
  }
  return null;
}

/** Throws the problem as a UserError (exit 1). */
export function checkFilter(flags: FilterFlags, db: KbDatabase): void {
  const problem = unknownFilterProblem(flags, db);
  if (problem !== null) throw new UserError(problem);
}

/** Up to `count` names nearest to `wanted` by edit distance (case-insensitive), nearest first, ties alphabetical. */
export function closestNames(wanted: string, names: readonly string[], count: number): string[] {
  const key = wanted.toLowerCase();
  return names
    .map((name) => ({ name, d: distance(key, name.toLowerCase()) - (name.toLowerCase().includes(key) ? key.length : 0) }))
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, count)
    .map((entry) => entry.name);
}
