// The top-level blocks of a Markdown body as mdast nodes, read by markdown-it.
//
// kb reads where a body's headings, sections, code fences, comments and paragraphs are, never
// their inline markup, and only at the top level (a heading inside a list or a quote opens no
// section). markdown-it's block parser (CommonMark, plus GitHub's tables) gives those blocks
// with their lines about fifteen times faster than a full mdast parse through micromark,
// which a cold scan of a large vault paid on every note. Its tokens carry line numbers, not
// offsets: each node's offsets are found here on the original text's lines, with CommonMark's
// own rules (spaces and tabs only), so they are the ones remark gives for the same source
// (test/kb/parse-markdown.test.ts holds the two side by side). The UI still renders with remark.
import MarkdownIt, { type MarkdownIt as Parser, type Token } from 'markdown-it';
import footnote from 'markdown-it-footnote';
import type { Code, Heading, Html, Paragraph, Root, RootContent, Text } from 'mdast';

// html: comments and HTML blocks are blocks of their own (a cards file keeps a card's id in
// one). Footnote definitions (`[^1]: …`) are containers, as in GitHub's Markdown: a line
// after one is no setext heading's text. The inline pass is never run (headings and
// paragraphs keep their source as it is), nor the footnotes' move to the end of the document.
let parser: Parser | null = null;
function blockParser(): Parser {
  if (parser) return parser;
  parser = new MarkdownIt('commonmark', { html: true }).enable('table');
  // The plugin lets a definition end a paragraph but not a block quote's lazy lines, where
  // GitHub's Markdown ends the quote too: its rule is registered with that one alternative more.
  const ruler = parser.block.ruler;
  const before = ruler.before.bind(ruler);
  ruler.before = (beforeName: string, ruleName: string, rule: Parameters<typeof before>[2], options?: Parameters<typeof before>[3]) =>
    before(beforeName, ruleName, rule, ruleName === 'footnote_def' ? { alt: [...(options?.alt ?? []), 'blockquote'] } : options);
  parser.use(footnote);
  ruler.before = before;
  parser.core.ruler.disable(['inline', 'text_join', 'footnote_tail']);
  return parser;
}

/** Offsets where each line starts; CRLF, LF and a lone CR each end a line (as markdown-it reads them). */
function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) {
    const char = source.charCodeAt(i);
    if (char === 13 /* \r */) {
      if (source.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (char === 10 /* \n */) {
      starts.push(i + 1);
    }
  }
  return starts;
}

class Lines {
  private readonly source: string;
  private readonly starts: number[];
  /** Any CR or CRLF line ending: markdown-it's code text then needs its own endings put back. */
  readonly hasCarriageReturns: boolean;
  constructor(source: string) {
    this.source = source;
    this.starts = lineStarts(source);
    this.hasCarriageReturns = source.includes('\r');
  }

  start(line: number): number {
    return this.starts[Math.min(line, this.starts.length - 1)];
  }

  /** Offset of the end of a line's text (before its line ending). */
  end(line: number): number {
    if (line + 1 >= this.starts.length) return this.source.length;
    const next = this.starts[line + 1];
    return this.source.charCodeAt(next - 1) === 10 && this.source.charCodeAt(next - 2) === 13 ? next - 2 : next - 1;
  }

  text(line: number): string {
    return this.source.slice(this.start(line), this.end(line));
  }

  isBlank(line: number): boolean {
    return /^[ \t]*$/.test(this.text(line));
  }

  /** Offset of the first character after a line's leading spaces and tabs. */
  indentEnd(line: number): number {
    const start = this.start(line);
    const end = this.end(line);
    let at = start;
    while (at < end && (this.source[at] === ' ' || this.source[at] === '\t')) at++;
    return at;
  }

  /** Offset after a line's last character that is not a space or tab (its start when blank). */
  trimmedEnd(line: number): number {
    const start = this.start(line);
    let at = this.end(line);
    while (at > start && (this.source[at - 1] === ' ' || this.source[at - 1] === '\t')) at--;
    return at;
  }

  /** A line's own line ending (empty for the last line). */
  ending(line: number): string {
    return line + 1 < this.starts.length ? this.source.slice(this.end(line), this.starts[line + 1]) : '';
  }

  get count(): number {
    return this.starts.length;
  }
}

function position(lines: Lines, start: number, end: number): NonNullable<RootContent['position']> {
  return { start: point(lines, start), end: point(lines, end) };
}

function point(lines: Lines, offset: number): { line: number; column: number; offset: number } {
  let line = 0;
  for (let low = 0, high = lines.count - 1; low <= high;) {
    const middle = (low + high) >> 1;
    if (lines.start(middle) <= offset) {
      line = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return { line: line + 1, column: offset - lines.start(line) + 1, offset };
}

/** The last line of a block that is not blank (markdown-it counts trailing blank lines in some). */
function lastContentLine(lines: Lines, first: number, endExclusive: number): number {
  let last = Math.min(endExclusive, lines.count) - 1;
  while (last > first && lines.isBlank(last)) last--;
  return last;
}

/** An ATX heading's text: after the opening `#`s and spaces, before a closing `#` sequence. */
function atxContent(lines: Lines, source: string, line: number): [number, number] | null {
  const from = lines.indentEnd(line);
  let at = from;
  while (source[at] === '#') at++;
  let end = lines.trimmedEnd(line);
  while (at < end && (source[at] === ' ' || source[at] === '\t')) at++;
  // A closing sequence: `#`s that are the whole rest, or follow a space or tab.
  let hashes = end;
  while (hashes > at && source[hashes - 1] === '#') hashes--;
  if (hashes < end && (hashes === at || source[hashes - 1] === ' ' || source[hashes - 1] === '\t')) {
    end = hashes;
    while (end > at && (source[end - 1] === ' ' || source[end - 1] === '\t')) end--;
  }
  return at < end ? [at, end] : null;
}

function textNode(lines: Lines, source: string, range: [number, number]): Text {
  return { type: 'text', value: source.slice(range[0], range[1]), position: position(lines, range[0], range[1]) };
}

function heading(lines: Lines, source: string, token: Token, map: [number, number]): Heading {
  const depth = Number(token.tag.slice(1)) as Heading['depth'];
  const setext = token.markup === '=' || token.markup === '-';
  const last = setext ? map[1] - 1 : map[0];
  const content: [number, number] | null = setext
    ? [lines.indentEnd(map[0]), lines.trimmedEnd(map[1] - 2)]
    : atxContent(lines, source, map[0]);
  return {
    type: 'heading',
    depth,
    children: content ? [textNode(lines, source, content)] : [],
    // An ATX heading runs to the end of its line, trailing spaces included (as in remark).
    position: position(lines, lines.indentEnd(map[0]), setext ? lines.trimmedEnd(last) : lines.end(last)),
  };
}

function code(lines: Lines, token: Token, map: [number, number]): Code {
  if (token.type === 'code_block') {
    const last = lastContentLine(lines, map[0], map[1]);
    return { type: 'code', lang: null, meta: null, value: withLineEndings(lines, token.content.replace(/\n$/, ''), map[0]), position: position(lines, lines.start(map[0]), lines.end(last)) };
  }
  const info = token.info.trim();
  const space = info.search(/[ \t]/);
  // A fence left open runs to the end of the body, blank lines and all (not the empty line
  // after a final line ending); a closed one to its closing line.
  const closed = map[1] - 1 > map[0] && isClosingFence(lines.text(map[1] - 1), token.markup);
  const last = closed ? map[1] - 1 : lines.count - 1 - (lines.count > map[0] + 2 && lines.text(lines.count - 1) === '' ? 1 : 0);
  const indent = lines.indentEnd(map[0]) - lines.start(map[0]);
  const body: string[] = [];
  const bodyEnd = closed ? last : last + 1;
  for (let line = map[0] + 1; line < bodyEnd; line++) {
    body.push(lines.text(line).replace(new RegExp(`^ {0,${indent}}`), '') + (line + 1 < bodyEnd ? lines.ending(line) : ''));
  }
  return {
    type: 'code',
    lang: info === '' ? null : space === -1 ? info : info.slice(0, space),
    meta: space === -1 ? null : info.slice(space).trim() || null,
    value: body.join(''),
    position: position(lines, lines.indentEnd(map[0]), lines.end(last)),
  };
}

/** A line that closes a fence opened with `marker`: the same character, at least as many, then only spaces. */
function isClosingFence(text: string, marker: string): boolean {
  const match = /^ {0,3}(`+|~+)[ \t]*$/.exec(text);
  return match !== null && match[1][0] === marker[0] && match[1].length >= marker.length;
}

/** markdown-it reads every line ending as \n: a code block's text gets its own back, line by line from `firstLine`. */
function withLineEndings(lines: Lines, value: string, firstLine: number): string {
  if (!lines.hasCarriageReturns) return value;
  return value.split('\n').map((text, k, all) => (k === all.length - 1 ? text : text + lines.ending(firstLine + k))).join('');
}

/** The blocks at the top level of `source`, with offsets into it; inline content is left as text. */
export function parseBlockTree(source: string): Root {
  const lines = new Lines(source);
  const tokens = blockParser().parse(source, {});
  const children: RootContent[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.level !== 0 || token.nesting === -1) continue;
    if (token.type === 'footnote_reference_open') {
      const node = footnoteDefinition(lines, tokens, i);
      if (node) children.push(node);
      continue;
    }
    if (!token.map) continue;
    const map = token.map as [number, number];
    const start = lines.indentEnd(map[0]);
    const end = lines.end(lastContentLine(lines, map[0], map[1]));
    switch (token.type) {
      case 'heading_open':
        children.push(heading(lines, source, token, map));
        break;
      case 'fence':
      case 'code_block':
        children.push(code(lines, token, map));
        break;
      case 'html_block': {
        const node: Html = { type: 'html', value: source.slice(start, end), position: position(lines, start, end) };
        children.push(node);
        break;
      }
      case 'paragraph_open': {
        const node: Paragraph = { type: 'paragraph', children: [textNode(lines, source, [start, end])], position: position(lines, start, end) };
        children.push(node);
        break;
      }
      default: {
        const type = CONTAINER_TYPES[token.type];
        if (type) children.push({ type, children: [], position: position(lines, start, end) } as unknown as RootContent);
      }
    }
  }
  return { type: 'root', children, position: position(lines, 0, source.length) };
}

/** A footnote definition's lines are those of the blocks inside it (its token has none of its own). */
function footnoteDefinition(lines: Lines, tokens: Token[], open: number): RootContent | null {
  let first: number | null = null;
  let end = 0;
  for (let k = open + 1; k < tokens.length && tokens[k].type !== 'footnote_reference_close'; k++) {
    const map = tokens[k].map;
    if (!map) continue;
    first ??= map[0];
    end = Math.max(end, map[1]);
  }
  if (first === null) return null;
  const start = lines.indentEnd(first);
  const last = lastContentLine(lines, first, end);
  return { type: 'footnoteDefinition', identifier: String(tokens[open].meta?.label ?? ''), children: [], position: position(lines, start, lines.end(last)) } as RootContent;
}

/** markdown-it's other top-level blocks, by their mdast names (kb reads only where they are). */
const CONTAINER_TYPES: Record<string, RootContent['type'] | undefined> = {
  hr: 'thematicBreak',
  blockquote_open: 'blockquote',
  bullet_list_open: 'list',
  ordered_list_open: 'list',
  table_open: 'table',
};
