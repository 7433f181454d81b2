// A note (notes/**/*.md) is one card: front = its H1, back = its answer section, full = the body.
import type { Heading, RootContent } from 'mdast';
import { answerHeadingRank } from './answer-heading.ts';
import { CARD_ID_PATTERN, DEFAULT_ID_KEY } from './card-meta.ts';
import { CALC_LANGUAGE, isCalcBlock, parseCalcBlocks, type CalcBlocks } from './calc-block.ts';
import { contentHash } from './card-identity.ts';
import type { ParsedFrontmatter } from './frontmatter.ts';
import { readLab, readNoteSeed, readString, readTags, type FieldReader } from './frontmatter-fields.ts';
import { cleanSlice, endOffset, headingContentRange, parseMarkdownBlocks, plainHeadingText, sectionEnd, sliceWithout, startOffset } from './markdown.ts';
import { answerPrefixEnd, endsWithTopLevelAtxHeading } from './note-prefix.ts';
import type { Diagnostic, KbPath, ParsedCard } from '../model/knowledge-base.ts';

export interface NoteParse {
  card: ParsedCard | null;
  diagnostics: Diagnostic[];
}

/** notes/<topic>/x.md -> <topic>; a note directly in its notes folder belongs to the deck `notes`. */
export function noteDeck(file: KbPath, notesFolder = 'notes'): string {
  const parts = (notesFolder === '.' ? file : file.slice(notesFolder.length + 1)).split('/');
  return parts.length > 1 ? parts.slice(0, -1).join('/') : 'notes';
}

export function fileTitle(file: KbPath): string {
  return (file.split('/').pop() ?? file).replace(/\.md$/i, '');
}

export interface NoteParseOptions {
  /** Parse the whole body even when a prefix settles the card (tests compare the two). */
  wholeBody?: boolean;
  /** The notes folder the note is in (kb.json's notesFolders; default notes): its deck is the path below it. */
  notesFolder?: string;
  /** The frontmatter key of the note's id (kb.json's idKey; default id). */
  idKey?: string;
}

/** What a note's card takes from its Markdown blocks. */
interface NoteBlocks {
  front: string | null;
  back: string;
  calcs: CalcBlocks;
}

export function parseNote(file: KbPath, text: string, fm: ParsedFrontmatter & { data: Record<string, unknown> }, options: NoteParseOptions = {}): NoteParse {
  const diagnostics: Diagnostic[] = [...fm.diagnostics];
  const reader: FieldReader = { file, data: fm.data, keyLines: fm.keyLines, diagnostics };
  const idKey = options.idKey ?? DEFAULT_ID_KEY;
  const id = readNoteId(reader, idKey);
  if (id === undefined) return { card: null, diagnostics };

  const body = text.slice(fm.bodyStart);
  const prefixEnd = options.wholeBody ? null : answerPrefixEnd(body);
  const blocks = (prefixEnd === null ? null : readBlocks(file, body, fm.bodyLine, prefixEnd)) ?? readBlocks(file, body, fm.bodyLine, null);
  if (!blocks) throw new Error('unreachable: the whole body always settles the card');
  // No H1: a `title:` in the frontmatter (as blog posts have), else the file name.
  const title = typeof fm.data.title === 'string' && fm.data.title.trim() !== '' ? fm.data.title.trim() : null;
  const front = blocks.front ?? title ?? fileTitle(file);
  diagnostics.push(...blocks.calcs.diagnostics);
  if (blocks.calcs.broken) return { card: null, diagnostics };
  // As a deck card with nothing under its heading: reviewed, its back would be blank.
  if (blocks.back === '' && blocks.calcs.spec === null) diagnostics.push({ severity: 'warning', file, line: fm.bodyLine, message: 'note has no answer: nothing under its question' });

  const full = cleanSlice(body);
  const tags = readTags(reader);
  const lab = readLab(reader);
  const card: Omit<ParsedCard, 'contentHash'> = {
    id,
    kind: 'note',
    file,
    line: 1,
    ...(id === null ? {} : { idLine: fm.keyLines.get(idKey) ?? 1 }),
    front,
    back: blocks.back,
    full,
    tags,
    deck: readString(reader, 'deck') ?? noteDeck(file, options.notesFolder),
    lab,
    calc: blocks.calcs.spec,
    seed: readNoteSeed(reader),
  };
  return { card: { ...card, contentHash: contentHash(card) }, diagnostics };
}

/**
 * The card's parts from the blocks of the body, or of its first `prefixEnd` characters; null
 * when that prefix does not settle them (then the whole body is read).
 */
function readBlocks(file: KbPath, body: string, bodyLine: number, prefixEnd: number | null): NoteBlocks | null {
  const source = prefixEnd === null ? body : body.slice(0, prefixEnd);
  const children = parseMarkdownBlocks(source).children;
  if (prefixEnd !== null) {
    if (!endsWithTopLevelAtxHeading(source, children)) return null;
    // A kb-calc block further on would belong to the card (and to its answer's cuts).
    if (body.includes(CALC_LANGUAGE, startOffset(children[children.length - 1]))) return null;
  }
  const h1Index = children.findIndex((node) => node.type === 'heading' && node.depth === 1);
  // The first H1 of a prefix is the note's first H1 only if the prefix has one.
  if (h1Index === -1 && prefixEnd !== null) return null;
  const h1 = h1Index === -1 ? null : (children[h1Index] as Heading);
  const frontRange = h1 ? headingContentRange(h1) : null;
  const calcs = parseCalcBlocks(file, children, bodyLine, source);
  const back = findAnswer(body, children, h1Index, calcs.ranges, prefixEnd === null);
  if (back === null) return null;
  return { front: frontRange ? cleanSlice(body, frontRange[0], frontRange[1]) : null, back, calcs };
}

/** The note's id, null when missing, undefined when unusable (an error: the note is skipped). */
function readNoteId(reader: FieldReader, idKey: string): string | null | undefined {
  const value = Object.hasOwn(reader.data, idKey) ? reader.data[idKey] : undefined;
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && CARD_ID_PATTERN.test(value)) return value;
  // A vault's own ids (a Zettelkasten's `id: 202311201230`) under kb's key: kb.json can give kb another.
  const ownIds = idKey === DEFAULT_ID_KEY ? ' (if your notes use id: for ids of their own, set "idKey": "kb_id" in kb.json: kb then keeps its ids there and leaves id: alone)' : '';
  reader.diagnostics.push({
    severity: 'error',
    file: reader.file,
    line: reader.keyLines.get(idKey),
    message: `${idKey}: expected letters, digits, - or _ (as text, quoted if it looks like a number), got ${JSON.stringify(value)}; note skipped${ownIds}`,
  });
  return undefined;
}

/**
 * The section under the best answer heading; else the first paragraph; else nothing. With
 * `complete` false the blocks are only a prefix of the body: then only an answer section that
 * ends inside it settles the answer (anything else could be beaten further on), else null.
 */
function findAnswer(body: string, children: RootContent[], frontIndex: number, cuts: Array<[number, number]>, complete: boolean): string | null {
  for (const rank of [0, 1] as const) {
    if (rank === 1 && !complete) return null;
    for (let i = 0; i < children.length; i++) {
      const node = children[i];
      if (i === frontIndex || node.type !== 'heading') continue;
      if (answerHeadingRank(plainHeadingText(body, node)) !== rank) continue;
      const end = sectionEnd(children, i, complete ? body.length : SECTION_RUNS_ON);
      if (end === SECTION_RUNS_ON) return null;
      const section = cleanSlice(sliceWithout(body, endOffset(node), end, cuts));
      if (section !== '') return section;
    }
  }
  if (!complete) return null;
  const paragraph = children.find((node, i) => i > frontIndex && node.type === 'paragraph')
    ?? children.find((node, i) => i > frontIndex && isContentBlock(node));
  return paragraph ? cleanSlice(body, startOffset(paragraph), endOffset(paragraph)) : '';
}

/** sectionEnd's answer for a section still open at the end of a prefix. */
const SECTION_RUNS_ON = -1;

function isContentBlock(node: RootContent): boolean {
  return node.type !== 'heading' && node.type !== 'html' && node.type !== 'thematicBreak' && node.type !== 'definition' && node.type !== 'yaml'
    && !isCalcBlock(node);
}
