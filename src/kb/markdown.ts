// The block structure of a Markdown body, as mdast nodes (block-tree.ts reads them).
//
// kb needs where headings, sections, code fences and comments are, never the inline markup:
// front/back/full are slices of the source, rendered later by the UI.
import type { Heading, Root, RootContent } from 'mdast';
import { parseBlockTree } from './block-tree.ts';

/**
 * The last bodies parsed, newest first, with their trees: writing a note's id re-reads a body
 * that did not change (two, for a note read first as a prefix, then whole).
 */
const recent: Array<{ body: string; root: Root }> = [];
const recentLimit = 2;

/**
 * The mdast of a body; positions are relative to `body` (offsets, 1-based lines). The tree is
 * shared with the next caller that passes the same body: read it, never change it.
 */
export function parseMarkdownBlocks(body: string): Root {
  const known = recent.find((entry) => entry.body === body);
  if (known) return known.root;
  const root = parseBlockTree(body);
  recent.unshift({ body, root });
  recent.length = Math.min(recent.length, recentLimit);
  return root;
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
  return source.slice(start, end).replace(/\r\n?/g, '\n').replace(/^(?:[ \t]*\n)+/, '').trimEnd().replace(TRAILING_RULE, '').trimEnd();
}

/**
 * A thematic break (---, ***, ___) closing a slice after a blank line: the separator before the
 * next section or card, not part of this one (it drew an empty rule under the answer, found as
 * a user). Right after a line of text, --- underlines a heading and is left alone.
 */
const TRAILING_RULE = /\n[ \t]*\n[ \t]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

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
