// Markdown source -> mdast, with GitHub tables, math ($x^2$, $$...$$) and Obsidian's wiki
// links (callouts are block quotes, told apart when drawn). Parsed trees are cached: the review screen
// re-renders on every key and resize, and a card's text does not change between them.
import type { Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { remarkDollarProse } from './dollar-math.ts';
import { remarkWikiLinks } from './wiki-link.ts';

const processor = unified().use(remarkParse).use(remarkGfm).use(remarkMath).use(remarkDollarProse).use(remarkWikiLinks);
const cache = new Map<string, Root>();
const CACHE_SIZE = 64;

export function parseMarkdown(source: string): Root {
  const cached = cache.get(source);
  if (cached) return cached;
  const tree = processor.runSync(processor.parse(source), source) as Root;
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(source, tree);
  return tree;
}
