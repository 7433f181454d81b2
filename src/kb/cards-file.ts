// A cards file (cards/**/*.md): one card per `##` heading; the body under it is the answer.
//
// Per-card metadata sits right under the heading:
//   ## What is TPOT?
//   <!-- kb:id=k3xq7m2ab9cd -->      (written by kb scan; invisible when rendered)
//   lab: ttft-breakdown              (optional: the card's lab, overriding the deck's)
import type { Heading } from 'mdast';
import { isCalcBlock, parseCalcBlocks } from './calc-block.ts';
import { placeholders } from './calc.ts';
import { CARD_ID_PATTERN, parseMetaComment, type IdSlot } from './card-meta.ts';
import { contentHash } from './card-identity.ts';
import type { ParsedFrontmatter } from './frontmatter.ts';
import { LAB_NAME_PATTERN, readLab, readString, readTags, type FieldReader } from './frontmatter-fields.ts';
import { cleanSlice, endOffset, headingContentRange, parseMarkdownBlocks, sliceWithout, startLine, startOffset } from './markdown.ts';
import type { Diagnostic, KbPath, ParsedCard } from '../model/knowledge-base.ts';

export interface LocatedCard {
  card: ParsedCard;
  slot: IdSlot;
}

export interface CardsFileParse {
  cards: LocatedCard[];
  diagnostics: Diagnostic[];
  /** An error that makes the whole file unusable (an invalid id). */
  failed: boolean;
}

const LAB_LINE = /^lab:[ \t]*([^\s]+)[ \t]*$/;
const META_FIELDS = new Set(['id', 'lab']);

/** cards/llm/metrics.md -> llm/metrics */
export function cardsDeck(file: KbPath): string {
  return file.replace(/^cards\//, '').replace(/\.md$/i, '');
}

export function parseCardsFile(file: KbPath, text: string, fm: ParsedFrontmatter & { data: Record<string, unknown> }): CardsFileParse {
  const diagnostics: Diagnostic[] = [...fm.diagnostics];
  const reader: FieldReader = { file, data: fm.data, keyLines: fm.keyLines, diagnostics };
  const deckTags = readTags(reader);
  const deckLab = readLab(reader);
  const deck = readString(reader, 'deck') ?? cardsDeck(file);

  const body = text.slice(fm.bodyStart);
  const fileLine = (bodyLine: number) => bodyLine + fm.bodyLine - 1;
  const children = parseMarkdownBlocks(body).children;
  const cards: LocatedCard[] = [];
  let failed = false;

  for (let i = 0; i < children.length; i++) {
    const heading = children[i];
    if (heading.type !== 'heading' || heading.depth !== 2) continue;
    let end = i + 1;
    while (end < children.length && !(children[end].type === 'heading' && (children[end] as Heading).depth <= 2)) end++;
    const nodes = children.slice(i + 1, end);
    const sectionEnd = end < children.length ? startOffset(children[end]) : body.length;
    const line = fileLine(startLine(heading));

    const range = headingContentRange(heading);
    if (!range) {
      diagnostics.push({ severity: 'warning', file, line, message: 'a ## heading with no question; skipped' });
      continue;
    }
    const front = cleanSlice(body, range[0], range[1]);

    // Metadata: an optional kb comment, then an optional `lab:` line.
    let contentStart = endOffset(heading);
    let next = 0;
    let id: string | null = null;
    let idLine: number | null = null;
    let cardLab: string | null = null;
    const headingLineEnd = lineEndAt(text, fm.bodyStart + endOffset(heading));
    let slot: IdSlot = { kind: 'line-after', offset: headingLineEnd };
    const first = nodes[0];
    const meta = first?.type === 'html' ? parseMetaComment(first.value) : null;
    if (first && meta) {
      const metaLine = fileLine(startLine(first));
      for (const key of meta.fields.keys()) {
        if (!META_FIELDS.has(key)) diagnostics.push({ severity: 'warning', file, line: metaLine, message: `kb comment: unknown field "${key}" ignored` });
      }
      const rawId = meta.fields.get('id');
      if (rawId === undefined) {
        slot = { kind: 'comment', offset: fm.bodyStart + startOffset(first) + meta.insertAt };
      } else if (CARD_ID_PATTERN.test(rawId)) {
        id = rawId;
        idLine = metaLine;
      } else {
        diagnostics.push({ severity: 'error', file, line: metaLine, message: `card id "${rawId}" must be letters, digits, - or _; file skipped` });
        failed = true;
      }
      cardLab = metaLab(meta.fields.get('lab'), file, metaLine, diagnostics);
      contentStart = endOffset(first);
      next = 1;
    }
    const labNode = nodes[next];
    if (labNode?.type === 'paragraph') {
      const source = body.slice(startOffset(labNode), endOffset(labNode));
      const newline = source.indexOf('\n');
      const firstLine = (newline === -1 ? source : source.slice(0, newline)).replace(/\r$/, '');
      const match = LAB_LINE.exec(firstLine);
      if (match) {
        cardLab = metaLab(match[1], file, fileLine(startLine(labNode)), diagnostics);
        contentStart = newline === -1 ? endOffset(labNode) : startOffset(labNode) + newline + 1;
      }
    }

    const calcs = parseCalcBlocks(file, nodes, fm.bodyLine, body);
    diagnostics.push(...calcs.diagnostics);
    if (calcs.broken) failed = true;
    if (calcs.spec) {
      const known = new Set(calcs.spec.vars.map((v) => v.name));
      for (const name of placeholders(front)) {
        if (!known.has(name) && name !== 'answer') diagnostics.push({ severity: 'warning', file, line, message: `question: {${name}} is not a kb-calc variable; it stays as written` });
      }
    }
    const back = cleanSlice(sliceWithout(body, contentStart, sectionEnd, calcs.ranges));
    const full = cleanSlice(body, contentStart, sectionEnd);
    if (back === '' && !calcs.spec && !nodes.some(isCalcBlock)) {
      diagnostics.push({ severity: 'warning', file, line, message: 'card has no answer under its heading' });
    }
    const card: Omit<ParsedCard, 'contentHash'> = {
      id,
      kind: 'card',
      file,
      line,
      ...(idLine === null ? {} : { idLine }),
      front,
      back,
      full,
      tags: deckTags,
      deck,
      lab: cardLab ?? deckLab,
      calc: calcs.spec,
      seed: null,
    };
    cards.push({ card: { ...card, contentHash: contentHash(card) }, slot });
  }
  // A deck's cards are its ## headings: a file of prose in cards/ (a note put there) gives none, said once.
  if (cards.length === 0 && !failed && body.trim() !== '') {
    diagnostics.push({ severity: 'warning', file, line: fm.bodyLine, message: "deck has no ## question, so no cards (each card is a ## heading; a note goes in a notes folder)" });
  }
  return { cards, diagnostics, failed };
}

function metaLab(value: string | undefined, file: KbPath, line: number, diagnostics: Diagnostic[]): string | null {
  if (value === undefined) return null;
  if (LAB_NAME_PATTERN.test(value) && !value.includes('..')) return value;
  diagnostics.push({ severity: 'warning', file, line, message: `lab: expected a lab name (a file in lab/ without .md), got "${value}"; ignored` });
  return null;
}

/** Offset of the line ending (or text end) of the line containing `offset`. */
function lineEndAt(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  if (newline === -1) return text.length;
  return text.charAt(newline - 1) === '\r' ? newline - 1 : newline;
}
