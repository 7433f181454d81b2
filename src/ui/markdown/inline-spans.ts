// Phrasing content (text, emphasis, strong, code, links, math, wiki links, ...) as styled runs
// of text, which the caller wraps to its width.
import type { Link, PhrasingContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import type { Span, SpanStyle } from '../text/wrap-spans.ts';
import { texToUnicode } from './tex-to-unicode.ts';
import { wikiLinkLabel, type WikiLink } from './wiki-link.ts';

/** A link to a page on the web (or mail): its address is worth showing; a relative one is not. */
function isExternal(link: Link): boolean {
  return /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(link.url);
}

export function inlineSpans(nodes: readonly PhrasingContent[], style: SpanStyle = {}): Span[] {
  return nodes.flatMap((node) => nodeSpans(node, style));
}

function nodeSpans(node: PhrasingContent | WikiLink, style: SpanStyle): Span[] {
  switch (node.type) {
    case 'text':
      return highlighted(node.value, style);
    case 'strong':
      return inlineSpans(node.children, { ...style, bold: true });
    case 'emphasis':
      return inlineSpans(node.children, { ...style, italic: true });
    case 'delete':
      return inlineSpans(node.children, { ...style, strikethrough: true });
    case 'inlineCode':
      return [{ text: node.value, style: { ...style, color: 'yellow' } }];
    case 'break':
      return [{ text: '\n', style }];
    case 'link': {
      const label = inlineSpans(node.children, { ...style, color: 'blue', underline: true });
      // A relative link (another note, a file of the vault) means nothing on a terminal: its text is enough.
      if (!isExternal(node) || toString(node) === node.url) return label;
      return [...label, { text: ` (${node.url})`, style: { ...style, dimColor: true } }];
    }
    case 'image':
      return [{ text: `[image: ${node.alt || node.url}]`, style: { ...style, dimColor: true } }];
    case 'html':
      return [{ text: htmlText(node.value), style }];
    case 'footnoteReference':
      return [{ text: `[${node.label ?? node.identifier}]`, style: { ...style, dimColor: true } }];
    case 'inlineMath':
      return [{ text: texToUnicode(node.value), style: { ...style, italic: true } }];
    case 'wikiLink':
      return node.embed
        ? [{ text: `[embed: ${wikiLinkLabel(node)}]`, style: { ...style, dimColor: true } }]
        : [{ text: wikiLinkLabel(node), style: { ...style, color: 'blue', underline: true } }];
    default:
      return [{ text: toString(node), style }];
  }
}

/** Obsidian's ==highlight== within a run of text, drawn inverse; the rest as it is. */
function highlighted(text: string, style: SpanStyle): Span[] {
  if (!text.includes('==')) return [{ text, style }];
  return text
    .split(/==(?=\S)([^=\n]*?\S)==/)
    .map((part, index) => ({ text: part, style: index % 2 === 1 ? { ...style, inverse: true } : style }))
    .filter((span) => span.text !== '');
}

/**
 * HTML as a terminal can show it: a line break for <br>, nothing for a comment or a tag (the
 * text between tags stays). A note's <details><summary> or <sup> printed raw read as noise.
 */
export function htmlText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?[A-Za-z][^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
