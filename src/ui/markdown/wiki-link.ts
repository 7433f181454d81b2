// Obsidian's wiki links in the mdast: `[[note]]`, `[[note|alias]]`, `[[note#heading]]` and
// embeds `![[file]]`. CommonMark leaves them as text (brackets with no link after them), so a
// tree transform finds them in text nodes and replaces each with a `wikiLink` node.
import type { PhrasingContent, Root, Text } from 'mdast';
import type { Node } from 'unist';
import { visit, SKIP } from 'unist-util-visit';

export interface WikiLink extends Node {
  type: 'wikiLink';
  /** The note or file linked (`folder/note`), its `#heading` or `^block`, and the text to show instead. */
  target: string;
  section: string | null;
  alias: string | null;
  embed: boolean;
}

declare module 'mdast' {
  interface PhrasingContentMap {
    wikiLink: WikiLink;
  }
}

const WIKI_LINK = /(!?)\[\[([^[\]\n]+?)\]\]/g;

export function parseWikiLink(inner: string, embed: boolean): WikiLink {
  const bar = inner.indexOf('|');
  const link = bar === -1 ? inner : inner.slice(0, bar);
  const alias = bar === -1 ? null : inner.slice(bar + 1).trim() || null;
  const hash = link.search(/[#^]/);
  const target = (hash === -1 ? link : link.slice(0, hash)).trim().replace(/\.md$/i, '');
  const section = hash === -1 ? null : link.slice(hash + 1).replace(/^[#^]+/, '').trim() || null;
  return { type: 'wikiLink', target, section, alias, embed };
}

/** What Obsidian shows for a link: the alias, else the note's name and the heading (`note > heading`). */
export function wikiLinkLabel(link: WikiLink): string {
  if (link.alias) return link.alias;
  if (!link.target) return link.section ?? '';
  return link.section ? `${link.target} > ${link.section}` : link.target;
}

/** The pieces of a text node: text and wiki links; null when it holds none. */
function splitText(node: Text): PhrasingContent[] | null {
  const pieces: PhrasingContent[] = [];
  let at = 0;
  for (const match of node.value.matchAll(WIKI_LINK)) {
    if (match.index > at) pieces.push({ type: 'text', value: node.value.slice(at, match.index) });
    pieces.push(parseWikiLink(match[2], match[1] === '!'));
    at = match.index + match[0].length;
  }
  if (pieces.length === 0) return null;
  if (at < node.value.length) pieces.push({ type: 'text', value: node.value.slice(at) });
  return pieces;
}

/** The unified plugin: wiki links in every text node of the tree (not in code). */
export function remarkWikiLinks() {
  return (tree: Root) => {
    visit(tree, 'text', (node, index, parent) => {
      if (!parent || index === undefined) return;
      const pieces = splitText(node);
      if (!pieces) return;
      (parent.children as PhrasingContent[]).splice(index, 1, ...pieces);
      return [SKIP, index + pieces.length];
    });
  };
}
