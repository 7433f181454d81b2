// A note (notes/**/*.md) is one card: front = its H1, back = its answer section, full = the body.
import type { Heading, Root, RootContent } from 'mdast';
import { answerHeadingRank } from './answer-heading.ts';
import { CARD_ID_PATTERN } from './card-meta.ts';
import { isCalcBlock, parseCalcBlocks } from './calc-block.ts';
import { contentHash } from './content-hash.ts';
import type { ParsedFrontmatter } from './frontmatter.ts';
import { readLab, readNoteSeed, readString, readTags, type FieldReader } from './frontmatter-fields.ts';
import { cleanSlice, endOffset, headingContentRange, parseMarkdownBlocks, plainHeadingText, sectionEnd, sliceWithout, startOffset } from './markdown.ts';
import type { Diagnostic, KbPath, ParsedCard } from './types.ts';

export interface NoteParse {
  card: ParsedCard | null;
  diagnostics: Diagnostic[];
}

/** notes/<topic>/x.md -> <topic>; a note directly in notes/ belongs to the deck `notes`. */
export function noteDeck(file: KbPath): string {
  const parts = file.split('/');
  return parts.length > 2 ? parts.slice(1, -1).join('/') : 'notes';
}

export function fileTitle(file: KbPath): string {
  return (file.split('/').pop() ?? file).replace(/\.md$/i, '');
}

export function parseNote(file: KbPath, text: string, fm: ParsedFrontmatter & { data: Record<string, unknown> }): NoteParse {
  const diagnostics: Diagnostic[] = [...fm.diagnostics];
  const reader: FieldReader = { file, data: fm.data, keyLines: fm.keyLines, diagnostics };
  const id = readNoteId(reader);
  if (id === undefined) return { card: null, diagnostics };

  const body = text.slice(fm.bodyStart);
  const root = parseMarkdownBlocks(body);
  const h1Index = root.children.findIndex((node) => node.type === 'heading' && node.depth === 1);
  const h1 = h1Index === -1 ? null : (root.children[h1Index] as Heading);
  const frontRange = h1 ? headingContentRange(h1) : null;
  // No H1: a `title:` in the frontmatter (as blog posts have), else the file name.
  const title = typeof fm.data.title === 'string' && fm.data.title.trim() !== '' ? fm.data.title.trim() : null;
  const front = frontRange ? cleanSlice(body, frontRange[0], frontRange[1]) : title ?? fileTitle(file);

  const calcs = parseCalcBlocks(file, root.children, fm.bodyLine);
  diagnostics.push(...calcs.diagnostics);
  const calcCuts = calcs.ranges;

  const back = findAnswer(body, root, h1Index, calcCuts);
  const full = cleanSlice(body);
  const tags = readTags(reader);
  const lab = readLab(reader);
  const card: Omit<ParsedCard, 'contentHash'> = {
    id,
    kind: 'note',
    file,
    line: 1,
    front,
    back,
    full,
    tags,
    deck: readString(reader, 'deck') ?? noteDeck(file),
    lab,
    calc: calcs.spec,
    seed: readNoteSeed(reader),
  };
  return { card: { ...card, contentHash: contentHash(card) }, diagnostics };
}

/** The note's id, null when missing, undefined when unusable (an error: the note is skipped). */
function readNoteId(reader: FieldReader): string | null | undefined {
  const value = reader.data.id;
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && CARD_ID_PATTERN.test(value)) return value;
  reader.diagnostics.push({
    severity: 'error',
    file: reader.file,
    line: reader.keyLines.get('id'),
    message: `id: expected letters, digits, - or _ (as text, quoted if it looks like a number), got ${JSON.stringify(value)}; note skipped`,
  });
  return undefined;
}

/** The section under the best answer heading; else the first paragraph; else nothing. */
function findAnswer(body: string, root: Root, frontIndex: number, cuts: Array<[number, number]>): string {
  const children = root.children;
  for (const rank of [0, 1] as const) {
    for (let i = 0; i < children.length; i++) {
      const node = children[i];
      if (i === frontIndex || node.type !== 'heading') continue;
      if (answerHeadingRank(plainHeadingText(body, node)) !== rank) continue;
      const section = cleanSlice(sliceWithout(body, endOffset(node), sectionEnd(children, i, body.length), cuts));
      if (section !== '') return section;
    }
  }
  const paragraph = children.find((node, i) => i > frontIndex && node.type === 'paragraph')
    ?? children.find((node, i) => i > frontIndex && isContentBlock(node));
  return paragraph ? cleanSlice(body, startOffset(paragraph), endOffset(paragraph)) : '';
}

function isContentBlock(node: RootContent): boolean {
  return node.type !== 'heading' && node.type !== 'html' && node.type !== 'thematicBreak' && node.type !== 'definition' && node.type !== 'yaml'
    && !isCalcBlock(node);
}
