// Card identity: short random ids, and writing the missing ones into a file's text.
import { randomBytes } from 'node:crypto';
import { formatMetaComment } from './card-meta.ts';
import { detectEol } from './frontmatter.ts';
import { updateFrontmatterFields } from './frontmatter-edit.ts';
import { parseLocated } from './parse.ts';
import type { ParsedCard, ParsedFile } from './types.ts';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
export const CARD_ID_LENGTH = 12;

/**
 * 12 characters of lowercase base32 (~60 random bits). It starts with a letter so that YAML
 * always reads it as text (an id like `7e2345234567` would otherwise be a float).
 */
export function newCardId(): string {
  const bytes = randomBytes(CARD_ID_LENGTH);
  let id = LETTERS[bytes[0] % LETTERS.length];
  for (let i = 1; i < CARD_ID_LENGTH; i++) id += ALPHABET[bytes[i] & 31];
  return id;
}

export interface InsertedIds {
  /** The new text: the old one with only the ids added. */
  text: string;
  /** Each new id with its card's line in the new text. */
  inserted: Array<{ line: number; id: string }>;
  /** The new text parsed (the same cards, now with ids). */
  parsed: ParsedFile;
}

/**
 * Adds an id to every card of `text` that has none: `id:` in a note's frontmatter (a block is
 * created when the note has none), a `<!-- kb:id=… -->` line under a card's heading. Nothing
 * else changes (BOM, line endings, key order). `idFor` chooses the ids (default: random).
 * Throws when the result would not parse back to the same cards.
 */
export function insertMissingIds(text: string, parsed: ParsedFile, idFor?: (card: ParsedCard) => string): InsertedIds {
  const { parsed: current, located } = parseLocated(parsed.file, text);
  const missing = located.filter((l) => l.card.id === null);
  if (current.skipped || missing.length === 0) return { text, inserted: [], parsed: current };

  const taken = new Set(located.map((l) => l.card.id).filter((id): id is string => id !== null));
  const chooseId = (card: ParsedCard): string => {
    let id = idFor ? idFor(card) : newCardId();
    while (taken.has(id)) id = newCardId();
    taken.add(id);
    return id;
  };

  const bomOffset = text.startsWith('\uFEFF') ? 1 : 0;
  const eol = detectEol(text);
  const ids = new Map<number, string>();
  let next = text;
  const inserts: Array<{ at: number; text: string }> = [];
  for (const { card, slot } of missing) {
    const id = chooseId(card);
    ids.set(located.findIndex((l) => l.card === card), id);
    if (slot.kind === 'frontmatter') next = updateFrontmatterFields(next, { id });
    else if (slot.kind === 'line-after') inserts.push({ at: slot.offset + bomOffset, text: eol + formatMetaComment(id) });
    else inserts.push({ at: slot.offset + bomOffset, text: `id=${id} ` });
  }
  for (const insert of inserts.sort((a, b) => b.at - a.at)) next = next.slice(0, insert.at) + insert.text + next.slice(insert.at);

  const reparsed = parseLocated(parsed.file, next).parsed;
  const same = reparsed.cards.length === current.cards.length && reparsed.cards.every((card, i) =>
    card.contentHash === current.cards[i].contentHash && card.id === (current.cards[i].id ?? ids.get(i)));
  if (!same) throw new Error(`${parsed.file}: inserting card ids would change the cards; file left as it is`);
  const inserted = [...ids].map(([index, id]) => ({ line: reparsed.cards[index].line, id }));
  return { text: next, inserted, parsed: reparsed };
}
