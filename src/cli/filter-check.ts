// One rule for --tag and --deck in kb review, kb due, kb quiz and kb cards: a name no card of the
// knowledge base has is a user error naming it (most likely a typo), with the closest
// names that exist. A known name with nothing due is not an error: "Nothing due", exit 0.
import { distance } from 'fastest-levenshtein';
import { typoBudget } from '../lab/typo.ts';
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
    const known = kind === 'tag' ? names.tags : names.decks;
    const closest = closestNames(value, known, 3);
    const hint = closest.length > 0 ? `; closest: ${closest.join(', ')}` : known.length > 0 ? `; none is close: the ${kind}s here are ${sample(known)}` : `; this knowledge base has no ${kind}s`;
    return `${flag}: no card has the ${kind} "${value}"${hint}`;
  }
  return null;
}

/** Throws the problem as a UserError (exit 1). */
export function checkFilter(flags: FilterFlags, db: KbDatabase): void {
  const problem = unknownFilterProblem(flags, db);
  if (problem !== null) throw new UserError(problem);
}

/**
 * Up to `count` names near `wanted` by edit distance (case-insensitive), nearest first, ties
 * alphabetical: a name that holds it, or one a typo away (an edit per three letters). Farther
 * names are no suggestion ("nosuch" drew "closest: mbu, mfu, mydeck", found as a user).
 */
export function closestNames(wanted: string, names: readonly string[], count: number): string[] {
  const key = wanted.toLowerCase();
  const near = typoBudget(key.length);
  return names
    .map((name) => ({ name, holds: name.toLowerCase().includes(key) }))
    .map(({ name, holds }) => ({ name, holds, d: distance(key, name.toLowerCase()) - (holds ? key.length : 0) }))
    .filter((entry) => entry.holds || entry.d <= near)
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, count)
    .map((entry) => entry.name);
}

/** The first names in order, and how many more. */
function sample(names: readonly string[], shown = 5): string {
  const sorted = [...names].sort((a, b) => a.localeCompare(b));
  const more = sorted.length - shown;
  return `${sorted.slice(0, shown).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
