// Merging a note that two devices reviewed: each side rewrote the four review fields of its
// frontmatter, so git sees both sides change the same lines. The log, not the file, says
// what the fields should be (kb rewrites them after its replay), so the versions are made
// to agree on those four values (agreedReviewFields) before the ordinary three-way merge of
// the rest: a change anywhere else still conflicts as git would have it.
import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_ID_KEY } from './card-meta.ts';
import { updateFrontmatterFields, type FrontmatterValue } from './frontmatter-edit.ts';
import { parseFrontmatter } from './frontmatter.ts';
import { insertMissingIds } from './id-insert.ts';
import { parseLocated } from './parse-file.ts';
import type { KbPath } from '../model/knowledge-base.ts';
import { REVIEW_FIELD_NAMES } from '../srs/review-fields.ts';

/** The review fields a note's text has, as written (only those present and of a writable type). */
export function reviewFieldValues(path: KbPath, text: string): Record<string, FrontmatterValue> | null {
  const data = parseFrontmatter(path, text).data;
  if (data === null) return null;
  const values: Record<string, FrontmatterValue> = {};
  for (const name of REVIEW_FIELD_NAMES) {
    const value = (data as Record<string, unknown>)[name];
    if (value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) values[name] = value;
  }
  return values;
}

/**
 * The review fields the merged note takes: the side that changed them from `base`, as a
 * three-way merge would; ours when both did. Only when both sides rated the card does the pull
 * bring an event that kb replays and rewrites the fields from; when one side only edited the
 * text (found as a user: A rated, B edited the body), nothing is replayed, and taking the
 * unchanged side's fields wrote the rating out of the note. Null when ours has none to give.
 */
export function agreedReviewFields(path: KbPath, base: string, ours: string, theirs: string): Record<string, FrontmatterValue> | null {
  const own = reviewFieldValues(path, ours);
  if (own === null) return null;
  const other = reviewFieldValues(path, theirs);
  const original = reviewFieldValues(path, base);
  if (other !== null && original !== null && isDeepStrictEqual(own, original) && !isDeepStrictEqual(other, original)) return other;
  return own;
}

/** `text` with its review fields set to `values`, where it has them; unchanged when it cannot be edited. */
export function withReviewFields(path: KbPath, text: string, values: Record<string, FrontmatterValue>): string {
  const own = reviewFieldValues(path, text);
  if (own === null) return text;
  const shared = Object.fromEntries(Object.entries(values).filter(([name]) => name in own));
  if (Object.keys(shared).length === 0) return text;
  try {
    return updateFrontmatterFields(text, shared);
  } catch {
    return text;
  }
}

/**
 * Whether `after` is `before` changed only as kb changes a note: its review fields rewritten
 * or added (a note's first rating adds them), and ids given to cards that had none (kb scan).
 * `notesFolders` (kb.json) says which paths are notes, `idKey` (kb.json) which key holds a note's id.
 */
export function differOnlyInKbFields(path: KbPath, before: string, after: string, notesFolders: readonly string[], idKey = DEFAULT_ID_KEY): boolean {
  if (before === after) return true;
  const values = reviewFieldValues(path, after);
  if (values === null || reviewFieldValues(path, before) === null) return false;
  try {
    return updateFrontmatterFields(withIdsOf(path, before, after, notesFolders, idKey), values) === after;
  } catch {
    return false;
  }
}

/**
 * What kb changed in a note that differOnlyInKbFields accepts: whether its review fields
 * differ, and whether cards that had no id now have one. kb sync's commit title says only
 * what the commit holds (it said "ids and review fields" for a rating's fields alone).
 */
export function kbFieldChanges(path: KbPath, before: string, after: string, notesFolders: readonly string[], idKey = DEFAULT_ID_KEY): { reviewFields: boolean; ids: boolean } {
  const reviewFields = !isDeepStrictEqual(reviewFieldValues(path, before), reviewFieldValues(path, after));
  const withIds = (text: string) => parseLocated(path, text, notesFolders, idKey).parsed.cards.filter((card) => card.id !== null).length;
  return { reviewFields, ids: withIds(after) > withIds(before) };
}

/** `before` with the ids `after` gave its cards that had none, written where kb scan writes them. */
function withIdsOf(path: KbPath, before: string, after: string, notesFolders: readonly string[], idKey: string): string {
  const old = parseLocated(path, before, notesFolders, idKey);
  if (old.located.every(({ card }) => card.id !== null)) return before;
  const ids = parseLocated(path, after, notesFolders, idKey).parsed.cards.map((card) => card.id);
  const given = old.parsed.cards.map((card, i) => card.id ?? ids[i] ?? null);
  if (ids.length !== given.length || given.some((id) => id === null)) return before;
  return insertMissingIds(before, old, (card) => given[old.parsed.cards.indexOf(card)]!).text;
}
