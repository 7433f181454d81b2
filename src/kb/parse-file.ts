// Parses one knowledge-base file by its folder: a notes folder (notes/, or kb.json's
// notesFolders) -> one card, cards/ -> one per `##`, lab/ -> no cards (the lab runner reads
// those), anything else -> nothing. Files of the wrong shape or over the parse limits are
// refused before any parser sees them.
import type { LocatedCard } from './cards-file.ts';
import { parseCardsFile } from './cards-file.ts';
import { fileShapeProblem } from './file-shape.ts';
import { DEFAULT_ID_KEY } from './card-meta.ts';
import { parseFrontmatter } from './frontmatter.ts';
import { DEFAULT_NOTES_FOLDERS, notesFolderOf, sourceKind } from './note-folders.ts';
import { parseNote } from './note.ts';
import { MAX_FRONTMATTER_BYTES, parseLimitProblem } from './parse-limits.ts';
import { stripBom } from './read-file.ts';
import type { Diagnostic, KbPath, ParsedCard, ParsedFile } from '../model/knowledge-base.ts';

export interface LocatedParse {
  parsed: ParsedFile;
  /** The cards with where their ids live (same order as parsed.cards). */
  located: LocatedCard[];
  /** The frontmatter's top-level mapping; null when the file was skipped or is not a card source. */
  frontmatter: Record<string, unknown> | null;
  /** The notes folders the file was parsed with (to parse an edited text of it the same way). */
  notesFolders: readonly string[];
  /** The frontmatter key of a note's id it was parsed with (kb.json's idKey). */
  idKey: string;
  /** A frontmatter block that an appended `key: value` line can only extend by that key (ParsedFrontmatter.appendsCleanly), with room to spare under the size limit. */
  appendsCleanly?: boolean;
}

/** Parses a file's text (a leading BOM is ignored). Errors in `diagnostics` name file and line. */
export function parseKnowledgeFile(path: KbPath, text: string): ParsedFile {
  return parseLocated(path, text).parsed;
}

/**
 * parseKnowledgeFile plus id locations; offsets are into the text without its BOM. The notes
 * folders (kb.json) say which paths are notes, and idKey (kb.json) which frontmatter key holds a note's id.
 */
export function parseLocated(path: KbPath, input: string, notesFolders: readonly string[] = DEFAULT_NOTES_FOLDERS, idKey = DEFAULT_ID_KEY): LocatedParse {
  const text = stripBom(input);
  const kind = sourceKind(path, notesFolders);
  const skipped = (file: KbPath, diagnostics: Diagnostic[], read: LocatedCard[] = []) => skippedParse(file, diagnostics, notesFolders, idKey, read);
  if (kind !== 'note' && kind !== 'cards') return { parsed: { file: path, cards: [], diagnostics: [] }, located: [], frontmatter: null, notesFolders, idKey };

  const shape = fileShapeProblem(path, text);
  if (shape) return skipped(path, [shape]);
  const overLimit = parseLimitProblem(path, text);
  if (overLimit) return skipped(path, [overLimit]);
  const fm = parseFrontmatter(path, text);
  if (fm.data === null) return skipped(path, fm.diagnostics);
  const fmOk = fm as typeof fm & { data: Record<string, unknown> };

  let located: LocatedCard[];
  let diagnostics: Diagnostic[];
  if (kind === 'note') {
    const note = parseNote(path, text, fmOk, { notesFolder: notesFolderOf(path, notesFolders) ?? undefined, idKey });
    if (!note.card) return skipped(path, note.diagnostics);
    located = [{ card: note.card, slot: { kind: 'frontmatter' } }];
    diagnostics = note.diagnostics;
  } else {
    const result = parseCardsFile(path, text, fmOk);
    if (result.failed) return skipped(path, result.diagnostics, result.cards);
    located = result.cards;
    diagnostics = result.diagnostics;
  }

  const duplicates = duplicateIds(path, located);
  if (duplicates.length > 0) return skipped(path, [...diagnostics, ...duplicates], located);
  const block = fmOk.block;
  const appendsCleanly = fmOk.appendsCleanly === true && block !== null && block.yamlEnd - block.yamlStart < MAX_FRONTMATTER_BYTES - 1024;
  return { parsed: { file: path, cards: located.map((l) => l.card), diagnostics }, located, frontmatter: fmOk.data, notesFolders, idKey, appendsCleanly };
}

function skippedParse(file: KbPath, diagnostics: Diagnostic[], notesFolders: readonly string[], idKey: string, read: LocatedCard[]): LocatedParse {
  const cardsAsRead = read.length === 0 ? {} : { cardsAsRead: read.map((l) => l.card) };
  return { parsed: { file, cards: [], diagnostics, skipped: true, ...cardsAsRead }, located: [], frontmatter: null, notesFolders, idKey };
}

/**
 * Two cards of one file with one id: an error at the second id's line, naming both ids' lines
 * and both cards' questions; nothing is merged. The id's line, not the heading's: the kb:id
 * comment is what the user edits (the headings' lines sent them one line off, found by hand).
 */
function duplicateIds(file: KbPath, located: LocatedCard[]): Diagnostic[] {
  const first = new Map<string, ParsedCard>();
  const problems: Diagnostic[] = [];
  for (const { card } of located) {
    if (card.id === null) continue;
    const earlier = first.get(card.id);
    if (earlier === undefined) {
      first.set(card.id, card);
      continue;
    }
    const line = card.idLine ?? card.line;
    const lines = `lines ${earlier.idLine ?? earlier.line} and ${line} (${quotedQuestion(earlier)} and ${quotedQuestion(card)})`;
    problems.push({ severity: 'error', file, line, message: `duplicate card id "${card.id}" on ${lines}; file skipped until one is changed` });
  }
  return problems;
}

/** A card's question as a message names it: "## What is TPOT?", cut to one short line. */
export function quotedQuestion(card: Pick<ParsedCard, 'front' | 'kind'>): string {
  const front = card.front.replace(/\s+/g, ' ').trim();
  const short = front.length > 60 ? `${front.slice(0, 59)}…` : front;
  return card.kind === 'card' ? `"## ${short}"` : `"${short}"`;
}
