// How a card's id and metadata are written in files: the id pattern and the invisible
// `<!-- kb:id=… -->` comment under a card's heading.

/** Ids kb accepts from a file (hand-written ones too): url-safe, one word, at most 64 chars. */
export const CARD_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The frontmatter key of a note's id: kb.json's idKey. `id` unless a vault uses `id:` for ids
 * of its own (a Zettelkasten's `id: 202311201230`): then kb keeps its ids under another key
 * (kb init picks `kb_id`) and never reads or writes that `id:`.
 */
export const DEFAULT_ID_KEY = 'id';

/** The frontmatter keys kb reads as something else: none of them can hold a note's id. */
export const RESERVED_NOTE_KEYS: readonly string[] = ['created', 'last_reviewed', 'next_review', 'review_count', 'difficulty', 'mastery_level', 'tags', 'related_outlines', 'lab', 'deck', 'title'];

/** The invisible marker under a card's heading: `<!-- kb:id=abc lab=name -->`. */
const META_COMMENT = /^<!--\s*kb:([\s\S]*?)-->\s*$/;

export interface CardMetaComment {
  fields: Map<string, string>;
  /** Offset (inside the comment text) just after `kb:`, where a missing `id=` goes. */
  insertAt: number;
}

export function parseMetaComment(html: string): CardMetaComment | null {
  const match = META_COMMENT.exec(html);
  if (!match) return null;
  const fields = new Map<string, string>();
  for (const pair of match[1].matchAll(/([A-Za-z_][\w-]*)=(\S+)/g)) fields.set(pair[1], pair[2]);
  return { fields, insertAt: html.indexOf('kb:') + 3 };
}

export function formatMetaComment(id: string): string {
  return `<!-- kb:id=${id} -->`;
}

/** Where a card's id lives or would be inserted, as offsets into the BOM-less text. */
export type IdSlot =
  | { kind: 'frontmatter' }
  /** A new `<!-- kb:id=… -->` line goes after the line ending at `offset` (the heading's). */
  | { kind: 'line-after'; offset: number }
  /** The card has a kb comment without an id: `id=… ` goes at `offset` inside it. */
  | { kind: 'comment'; offset: number };
