// A long Markdown text parsed a section at a time, on demand. remark's parse is superlinear
// (a 200 KB note ~0.5 s, a 2 MB one ~20 s on 2 cores) and a screen shows a few sections of
// it: a long note (an Obsidian vault's) is cut before each top-level `#` heading line (and,
// every few KB, before a paragraph: a note may have no headings) and each piece parsed when
// first drawn, so the time to the first screen no longer grows with
// the note.
//
// Why the cuts are safe (as kb/note-prefix.ts reasons for a scan): CommonMark reads blocks
// line by line, and an ATX heading line at the top level closes every open block, whatever
// came before; so the blocks after it are those of the text that starts with it. The raw scan
// below only guesses where such lines are (it skips fenced code, `$$` math and the HTML blocks
// that run to an end marker); each guess is checked on the real parse of the piece before it
// plus that line, and a guess the parse does not confirm is dropped (the two pieces are one).
// Link and footnote definitions hold for the whole text: their lines are parsed with every
// piece, and the blocks they give there are dropped.
import type { Root, RootContent } from 'mdast';
import { parseMarkdown } from './parse-markdown.ts';

/** Texts shorter than this are parsed whole (parseMarkdown), as every normal note is. */
export const SECTIONED_MIN_CHARS = 16_384;

const HEADING_LINE = /^#{1,6}(?:[ \t]|\r?$)/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const MATH_FENCE = /^ {0,3}\$\$/;
/** HTML blocks of CommonMark's kinds 1-5, which end at a marker rather than a blank line. */
const HTML_BLOCKS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/^ {0,3}<(?:script|pre|style|textarea)(?:[\s>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
];
const DEFINITION_LINE = /^ {0,3}\[\^?[^\]\n]+\]:[^\n]*/gm;

/**
 * A long text with few or no headings (a clipped article, a log, a journal) is cut at
 * paragraphs too, at most one such cut in this many characters: a 1 MB note without headings
 * was one piece, and `f` froze the screen ~45 s parsing it.
 */
const PARAGRAPH_CUT_EVERY = 4_096;
/**
 * A line that may start a top-level block after a blank line: at the line's start, and no list
 * item (a list goes on across blank lines; its items are one block), no indented code, no
 * definition, no `---`, `***`, `___` or `===` line. CommonMark closes every open block there:
 * a paragraph and a table end at the blank line, a list item or a quote at a line neither
 * indented nor marked.
 */
const PARAGRAPH_LINE = /^(?![-*+_=[]|\d{1,9}[.)](?:[ \t]|\r?$))\S/;

/** Offsets of the lines that look like top-level ATX headings (the text's first line aside). */
export function headingCuts(source: string): number[] {
  return blockCuts(source, false);
}

/**
 * Where a long text may be cut into sections: before each line that looks like a top-level
 * ATX heading and, `paragraphs` given, before a paragraph-like line after a blank one when the
 * last cut is PARAGRAPH_CUT_EVERY characters back. Guesses: MarkdownSections checks each.
 */
function blockCuts(source: string, paragraphs: boolean): number[] {
  const cuts: number[] = [];
  let blankBefore = false;
  let fence: { char: string; length: number } | null = null;
  let math = false;
  let htmlEnd: RegExp | null = null;
  for (let start = 0; start < source.length; ) {
    const newline = source.indexOf('\n', start);
    const end = newline === -1 ? source.length : newline;
    const line = source.slice(start, end);
    if (fence) {
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*\r?$/.exec(line);
      if (close && close[1][0] === fence.char && close[1].length >= fence.length) fence = null;
    } else if (math) {
      if (MATH_FENCE.test(line)) math = false;
    } else if (htmlEnd) {
      if (htmlEnd.test(line)) htmlEnd = null;
    } else if (HEADING_LINE.test(line)) {
      if (start > 0) cuts.push(start);
    } else if (paragraphs && blankBefore && PARAGRAPH_LINE.test(line) && start - (cuts.at(-1) ?? 0) >= PARAGRAPH_CUT_EVERY) {
      cuts.push(start);
    } else {
      const open = FENCE_OPEN.exec(line);
      if (open && !(open[1][0] === '`' && open[2].includes('`'))) fence = { char: open[1][0], length: open[1].length };
      // `$$ x $$` on one line opens nothing; a cut missed is only a longer piece.
      else if (MATH_FENCE.test(line)) math = !/^ {0,3}\$\$.*\$\$[ \t]*\r?$/.test(line);
      else {
        const html = HTML_BLOCKS.find(([opens]) => opens.test(line));
        if (html && !html[1].test(line.replace(html[0], ''))) htmlEnd = html[1];
      }
    }
    // Only outside code, math and HTML blocks: a blank line in a fence closes nothing.
    blankBefore = fence === null && !math && htmlEnd === null && /^[ \t]*\r?$/.test(line);
    start = end + 1;
  }
  return cuts;
}

const startOf = (node: RootContent) => node.position?.start.offset ?? 0;
const endOf = (node: RootContent) => node.position?.end.offset ?? 0;

/** A long text's top-level blocks, a section at a time, each parsed when first asked for. */
export class MarkdownSections {
  private readonly cuts: number[];
  private readonly definitions: string;
  private readonly sections: RootContent[][] = [];
  /** Where the next section starts; the text's length once every section is parsed. */
  private cursor = 0;
  /** Characters parsed so far (pieces, their check lines and definitions): the work done. */
  parsedChars = 0;

  private readonly source: string;

  constructor(source: string) {
    this.source = source;
    this.cuts = blockCuts(source, true);
    const definitions = source.match(DEFINITION_LINE);
    this.definitions = definitions ? definitions.join('\n\n') : '';
  }

  get complete(): boolean {
    return this.cursor >= this.source.length;
  }

  /** The top-level blocks of section `index` (parsed now if they were not), or null past the last one. */
  section(index: number): RootContent[] | null {
    while (this.sections.length <= index && !this.complete) this.sections.push(this.parseNext());
    return this.sections[index] ?? null;
  }

  private parseNext(): RootContent[] {
    const start = this.cursor;
    for (;;) {
      const cut = this.cuts.find((at) => at > start) ?? this.source.length;
      const piece = this.source.slice(start, cut);
      // The heading line after the piece, to check the cut on.
      const lineEnd = this.source.indexOf('\n', cut);
      const check = cut < this.source.length ? this.source.slice(cut, lineEnd === -1 ? this.source.length : lineEnd + 1) : '';
      const blocks = this.parse(piece, check);
      if (blocks) {
        this.cursor = cut;
        return blocks;
      }
      // Not the start of a top-level block in context (inside a block the raw scan did not see): no cut here.
      this.cuts.splice(this.cuts.indexOf(cut), 1);
    }
  }

  /** The blocks of `piece`, or null when `check` (the line after it) does not start a top-level block there. */
  private parse(piece: string, check: string): RootContent[] | null {
    const withDefinitions = this.definitions === '' ? null : `${piece}${check}\n\n${this.definitions}`;
    const text = withDefinitions ?? piece + check;
    this.parsedChars += text.length;
    const children = (parseFresh(text) as Root).children;
    if (check !== '') {
      const next = children.find((node) => endOf(node) > piece.length);
      // The block after the piece starts at the cut: none before it runs on past the cut (a
      // list or a quote the line continues, code the raw scan missed).
      if (!next || startOf(next) !== piece.length) return null;
    }
    const blocks = children.filter((node) => startOf(node) < piece.length);
    // A piece that ends inside an open block (code fenced to the end of the text) took the
    // definitions in: parsed again without them.
    if (withDefinitions !== null && check === '' && blocks.some((node) => endOf(node) > piece.length)) {
      this.parsedChars += piece.length;
      return parseFresh(piece).children;
    }
    return blocks;
  }
}

/** A piece parsed once: parseMarkdown's cache is for a screen's few texts, not a note's thousands of pieces. */
function parseFresh(text: string): Root {
  return parseMarkdown(text, { cache: false });
}

const cache = new Map<string, MarkdownSections>();
const CACHE_SIZE = 4;

/** The sections of `source`, kept for the few texts a screen shows (a key redraws them). */
export function markdownSections(source: string): MarkdownSections {
  let sections = cache.get(source);
  if (!sections) {
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    sections = new MarkdownSections(source);
    cache.set(source, sections);
  }
  return sections;
}

/**
 * Whether the text has a level-1 heading among its top-level blocks. A long text is parsed
 * only as far as its first one (a note's title is its first line), and not at all when no line
 * could be one.
 */
export function hasTopLevelH1(source: string): boolean {
  const isH1 = (node: RootContent) => node.type === 'heading' && node.depth === 1;
  if (source.length < SECTIONED_MIN_CHARS) return parseMarkdown(source).children.some(isH1);
  // A title's line: the first, a cut's (the raw scan skips code), or a setext underline.
  const h1Line = (at: number) => /^ {0,3}#(?:[ \t]|\r?\n|\r?$)/.test(source.slice(at, at + 8));
  if (!h1Line(0) && !headingCuts(source).some(h1Line) && !/^ {0,3}=+[ \t]*\r?$/m.test(source)) return false;
  const sections = markdownSections(source);
  for (let index = 0; ; index++) {
    const blocks = sections.section(index);
    if (blocks === null) return false;
    if (blocks.some(isH1)) return true;
  }
}
