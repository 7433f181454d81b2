// Writing the missing card ids into a file's text, changing nothing else.
import { isDeepStrictEqual } from 'node:util';
import { formatMetaComment } from './card-meta.ts';
import { detectEol, locateFrontmatter } from './frontmatter.ts';
import { formatValue, updateFrontmatterFields } from './frontmatter-edit.ts';
import { parseLocated, type LocatedParse } from './parse-file.ts';
import type { ParsedCard, ParsedFile } from '../model/knowledge-base.ts';
import { newCardId } from './card-identity.ts';
import { lineIndex } from './line-index.ts';

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
 * `parsed` is the parse of `text`; a LocatedParse (parseLocated's result) saves parsing it again.
 * Throws when the result would not parse back to the same cards.
 */
export function insertMissingIds(text: string, parsed: ParsedFile | LocatedParse, idFor?: (card: ParsedCard) => string): InsertedIds {
  const { parsed: current, located, frontmatter, notesFolders, idKey, appendsCleanly } = 'located' in parsed ? parsed : parseLocated(parsed.file, text);
  const file = current.file;
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
  let noteId: string | null = null;
  const inserts: Array<{ at: number; text: string }> = [];
  for (const { card, slot } of missing) {
    const id = chooseId(card);
    ids.set(located.findIndex((l) => l.card === card), id);
    if (slot.kind === 'frontmatter') noteId = id;
    else if (slot.kind === 'line-after') inserts.push({ at: slot.offset + bomOffset, text: eol + formatMetaComment(id) });
    else inserts.push({ at: slot.offset + bomOffset, text: `id=${id} ` });
  }
  for (const insert of inserts.sort((a, b) => b.at - a.at)) next = next.slice(0, insert.at) + insert.text + next.slice(insert.at);

  // The new text must parse back to the same cards with the new ids (an appended `id:` line:
  // to the same frontmatter plus the id, too). A note's body is untouched, so this costs one
  // YAML parse (parseMarkdownBlocks remembers the last bodies); a cards file is parsed in full.
  const check = (candidate: string, appendedId: string | null): ParsedFile | null => {
    const again = parseLocated(file, candidate, notesFolders, idKey);
    const same = again.parsed.cards.length === current.cards.length && again.parsed.cards.every((card, i) =>
      card.contentHash === current.cards[i].contentHash && card.id === (current.cards[i].id ?? ids.get(i)));
    const sameFrontmatter = appendedId === null || isDeepStrictEqual(again.frontmatter, { ...frontmatter, [idKey]: appendedId });
    return same && sameFrontmatter ? again.parsed : null;
  };
  let reparsed: ParsedFile | null = null;
  if (noteId !== null && appendsCleanly === true && located.length === 1 && current.cards[0].calc === null && frontmatter !== null && !Object.hasOwn(frontmatter, idKey)) {
    // A note's card is read from its body and frontmatter; the body is untouched and the
    // appended line only adds `id` (appendsCleanly), so the card is the same with its id:
    // a cold scan writing ids into thousands of notes spares a second parse of each. (A
    // kb-calc block records its line, which the new line moves: that note is parsed again.)
    // The id's line is the block's closing line as it was (appendsCleanly: the note has a block).
    const close = locateFrontmatter(next)!.close;
    const idLine = lineIndex(next.slice(0, close + 1))(close);
    next = appendFrontmatterId(next, idKey, noteId);
    reparsed = { ...current, cards: [{ ...current.cards[0], id: noteId, idLine }] };
  } else if (noteId !== null) {
    // A missing `id:` is appended as updateFrontmatterFields would append it; anything else
    // (an empty `id:`, or an append that does not read back) goes through it, with its checks.
    if (frontmatter !== null && !Object.hasOwn(frontmatter, idKey)) {
      const appended = appendFrontmatterId(next, idKey, noteId);
      reparsed = check(appended, noteId);
      if (reparsed) next = appended;
    }
    if (!reparsed) next = updateFrontmatterFields(next, { [idKey]: noteId });
  }
  reparsed ??= check(next, null);
  if (!reparsed) throw new Error(`${file}: inserting card ids would change the cards; file left as it is`);
  const inserted = [...ids].map(([index, id]) => ({ line: reparsed.cards[index].line, id }));
  return { text: next, inserted, parsed: reparsed };
}

/**
 * A new last line `id: …` (`<idKey>: …`) in the frontmatter (or a new block holding only it),
 * written as updateFrontmatterFields writes a missing key, without its re-reading:
 * insertMissingIds checks the whole file afterwards.
 */
function appendFrontmatterId(text: string, idKey: string, id: string): string {
  // kb's ids (a letter, then letters and digits) read as plain strings in YAML 1.1 and 1.2,
  // so they skip formatValue's two trial parses; insertMissingIds parses the result anyway.
  const line = `${idKey}: ${/^[a-z][a-z0-9]{5,}$/.test(id) ? id : formatValue(id, null)}`;
  const block = locateFrontmatter(text);
  if (block) return text.slice(0, block.close) + line + block.eol + text.slice(block.close);
  const eol = detectEol(text);
  const at = text.startsWith('\uFEFF') ? 1 : 0;
  return `${text.slice(0, at)}---${eol}${line}${eol}---${eol}${text.slice(at)}`;
}
