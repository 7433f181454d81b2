// The block structure of a Markdown body (mdast via unified + remark-parse + remark-gfm).
//
// kb needs where headings, sections, code fences and comments are, never the inline markup:
// front/back/full are slices of the source, rendered later by the UI. CommonMark parses
// blocks before inlines, so switching the inline constructs off leaves every block and
// position unchanged and makes a cold scan of a large vault about twice as fast.
import type { Heading, Root, RootContent } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified, type Processor } from 'unified';

const INLINE_CONSTRUCTS = [
  'attention', 'autolink', 'characterEscape', 'characterReference', 'codeText', 'labelStartImage',
  'labelStartLink', 'labelEnd', 'hardBreakEscape', 'hardBreakTrailing', 'htmlText',
  'wwwAutolink', 'protocolAutolink', 'emailAutolink', 'strikethrough', 'gfmFootnoteCall',
  'gfmPotentialFootnoteCall', 'tasklistCheck',
];

function blocksOnly(this: Processor) {
  const data = this.data() as { micromarkExtensions?: unknown[] };
  (data.micromarkExtensions ??= []).push({ disable: { null: INLINE_CONSTRUCTS } });
}

let processor: Processor<Root> | null = null;

/** The mdast of a body; positions are relative to `body` (offsets, 1-based lines). */
export function parseMarkdownBlocks(body: string): Root {
  processor ??= unified().use(remarkParse).use(remarkGfm).use(blocksOnly) as unknown as Processor<Root>;
  return processor.parse(body);
}

export function startOffset(node: { position?: { start: { offset?: number } } }): number {
  return node.position?.start.offset ?? 0;
}

export function endOffset(node: { position?: { end: { offset?: number } } }): number {
  return node.position?.end.offset ?? 0;
}

export function startLine(node: { position?: { start: { line: number } } }): number {
  return node.position?.start.line ?? 1;
}

/** Source range of a heading's text (without `#` marks or a setext underline); null when empty. */
export function headingContentRange(heading: Heading): [number, number] | null {
  if (heading.children.length === 0) return null;
  return [startOffset(heading.children[0]), endOffset(heading.children[heading.children.length - 1])];
}

/** Offset where the section opened by `children[index]` (a heading) ends: the next heading as high. */
export function sectionEnd(children: RootContent[], index: number, bodyLength: number): number {
  const depth = (children[index] as Heading).depth;
  for (let i = index + 1; i < children.length; i++) {
    const node = children[i];
    if (node.type === 'heading' && node.depth <= depth) return startOffset(node);
  }
  return bodyLength;
}

/** A Markdown source slice as cards hold it: LF line endings, no surrounding blank lines. */
export function cleanSlice(source: string, start = 0, end = source.length): string {
  return source.slice(start, end).replace(/\r\n?/g, '\n').replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}

/** Source of `[start, end)` with some ranges cut out (e.g. a kb-calc block inside an answer). */
export function sliceWithout(source: string, start: number, end: number, cuts: Array<[number, number]>): string {
  let out = '';
  let at = start;
  for (const [from, to] of [...cuts].sort((a, b) => a[0] - b[0])) {
    if (to <= at || from >= end) continue;
    out += source.slice(at, Math.max(at, from));
    at = Math.min(end, to);
  }
  return out + source.slice(at, end);
}

/** Heading text for matching: the source without Markdown marks. */
export function plainHeadingText(source: string, heading: Heading): string {
  const range = headingContentRange(heading);
  if (!range) return '';
  return source.slice(range[0], range[1]).replace(/[*_`~]|\[|\]\([^)]*\)|\]/g, '').trim();
}
