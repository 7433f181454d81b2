// A question as one line of plain text, for listings (kb due, kb cards): Markdown as the review
// screen draws it, without the styling: `[[KV Cache|the cache]]` reads "the cache", `$\sqrt{d_k}$`
// reads "√dₖ", `**batch**` reads "batch" (the listings printed the source).
import type { PhrasingContent } from 'mdast';
import { inlineSpans } from './inline-spans.ts';
import { parseMarkdown } from './parse-markdown.ts';

/** Characters that may start Markdown a listing would show raw; a question without any is returned as it is (most are). */
const MAY_HAVE_MARKUP = /[*_`$[\]<\\~=]/;
/** What only the Markdown parser reads right: math, HTML, escapes. */
const NEEDS_PARSER = /[$<\\]/;

/**
 * The common marks read without the parser (it takes ~0.2 ms a question: seconds for a listing
 * of 10,000): emphasis, code, wiki links and links.
 */
function withoutSimpleMarks(text: string): string {
  return text
    .replace(/!?\[\[([^\]|]+)(?:\|([^\]]+))?\]\]/g, (_, target: string, alias?: string) => (alias ?? target.split('#')[0]).trim())
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/==(?=\S)([^=\n]*?\S)==/g, '$1')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w_])_(?=\S)([^_]+?)(?<=\S)_(?!\w)/g, '$1$2');
}

export function plainQuestion(source: string): string {
  const oneLine = source.replace(/\s*\n\s*/g, ' ').trim();
  if (!MAY_HAVE_MARKUP.test(oneLine)) return oneLine;
  if (!NEEDS_PARSER.test(oneLine)) return withoutSimpleMarks(oneLine);
  const block = parseMarkdown(oneLine).children[0];
  if (!block || !('children' in block)) return oneLine;
  return inlineSpans(block.children as PhrasingContent[]).map((span) => span.text).join('').replace(/\s*\n\s*/g, ' ').trim() || oneLine;
}
