// The tag and deck names cards of the knowledge base use: what --tag and --deck may name.
import type { KbDatabase } from './db.ts';

export interface FilterNames {
  tags: string[];
  decks: string[];
}

/** Every tag and deck of a live (not orphaned) card, with their parents (`vllm` of `vllm/paged`), sorted. */
export function filterNames(db: KbDatabase): FilterNames {
  const tags = db.prepare<[], { name: string }>('SELECT DISTINCT t.value AS name FROM cards c, json_each(c.tags) t WHERE c.orphan = 0').all();
  const decks = db.prepare<[], { name: string }>("SELECT DISTINCT deck AS name FROM cards WHERE orphan = 0 AND deck <> ''").all();
  return { tags: withParents(tags.map((row) => String(row.name))), decks: withParents(decks.map((row) => row.name)) };
}

/** A filter matches a name and its sub-names, so `a/b/c` makes `a` and `a/b` valid too. */
function withParents(names: string[]): string[] {
  const all = new Set<string>();
  for (const name of names) {
    const parts = name.split('/');
    for (let i = 1; i <= parts.length; i++) all.add(parts.slice(0, i).join('/'));
  }
  return [...all].sort();
}

/**
 * Whether a live card has the tag (or a sub-tag of it): one indexed look-up for the usual
 * case, where the name is known; filterNames, which reads every card, is for the error.
 */
export function hasFilterName(db: KbDatabase, kind: 'tag' | 'deck', name: string): boolean {
  // A sub-name starts with `name/`: compared by prefix, not LIKE, whose % and _ a name may hold.
  const sql =
    kind === 'tag'
      ? 'SELECT 1 FROM cards c, json_each(c.tags) t WHERE c.orphan = 0 AND (t.value = @name OR substr(t.value, 1, length(@name) + 1) = @name || \'/\') LIMIT 1'
      : 'SELECT 1 FROM cards WHERE orphan = 0 AND (deck = @name OR substr(deck, 1, length(@name) + 1) = @name || \'/\') LIMIT 1';
  return db.prepare(sql).get({ name }) !== undefined;
}
